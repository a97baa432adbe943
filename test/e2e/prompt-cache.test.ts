/**
 * Issue 17 — the prompt-cache guarantee, in the real OpenCode: within one
 * session, between two compactions, every model request keeps the tools and
 * the system prompt byte-identical and begins with exactly the previous
 * request's messages; the rules only ever add at the end. Checked on a
 * scripted session (`harness/cache-session.ts`) as OpenCode delivers its
 * events, and with the `session.compacted` event reaching the plugin late
 * (0.5 s, 6 s: the user's next message has gone to the model by then), so
 * that the re-delivery after a compaction cannot rely on the event.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CACHE_MARK, CACHE_PROJECT, pairsWithinWindows, runCacheSession, type CacheSession } from "./harness/cache-session.js";
import { lastUserText, requestText } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { countOf as count, PLUGIN_UNDER_TEST } from "./harness/rules.js";

/** The model requests the script makes: a turn's tool steps, plus the continuation OpenCode sends after its automatic compaction. */
const SCRIPTED_REQUESTS = 17;

/** A plugin module that loads the plugin under test and hands it `session.compacted` events `delayMs` late. */
function delayedCompactionWrapper(pluginUrl: string, delayMs: number): string {
  return `import * as mod from ${JSON.stringify(pluginUrl)};
const server = mod.default.server;
export default {
  id: "opencode-rulebook",
  server: async (input, options) => {
    const hooks = await server(input, options);
    const event = hooks.event;
    return { ...hooks, event: (arg) => arg.event.type === "session.compacted" ? void setTimeout(() => event(arg), ${delayMs}) : event(arg) };
  },
};
`;
}

const breaksOfTheCache = (session: CacheSession): string[] => pairsWithinWindows(session).flatMap(({ where, difference }) => (difference ? [`${where}: ${difference}`] : []));

const CASES: Array<[string, number | undefined]> = [
  ["events as OpenCode delivers them", undefined],
  ["the compaction event 0.5 s late", 500],
  ["the compaction event 6 s late", 6_000],
];

describe.each(CASES)("every request extends the one before (real OpenCode): %s", (_name, delayMs) => {
  let oc: OpencodeInstance;
  let wrapperDir: string | undefined;
  let session: CacheSession;

  beforeAll(async () => {
    let pluginPath = PLUGIN_UNDER_TEST;
    if (delayMs !== undefined) {
      wrapperDir = fs.mkdtempSync(path.join(os.tmpdir(), "rulebook-delayed-"));
      pluginPath = path.join(wrapperDir, "delayed-compaction.mjs");
      fs.writeFileSync(pluginPath, delayedCompactionWrapper(pathToFileURL(PLUGIN_UNDER_TEST).href, delayMs));
    }
    oc = await startOpencode({ pluginPath, ...CACHE_PROJECT });
    session = await runCacheSession(oc);
  }, 120_000);

  afterAll(async () => {
    await oc?.stop();
    if (wrapperDir) fs.rmSync(wrapperDir, { recursive: true, force: true });
  });

  test("the script ran as written: two compactions, no model request beyond the script", () => {
    expect(session.windows.map((window) => window.length)).toEqual([10, 5, 2]);
    expect(session.requests).toHaveLength(SCRIPTED_REQUESTS);
  });

  test("within each window, each request keeps the tools, the system prompt and every earlier message byte for byte", () => {
    expect(breaksOfTheCache(session)).toEqual([]);
  });

  test("no request goes without the always-on rule, and none holds it twice", () => {
    const counts = session.requests.map((request) => `${lastUserText(request).slice(0, 24)}: ${count(requestText(request), CACHE_MARK.always)}`);
    expect(counts.filter((line) => !line.endsWith(": 1"))).toEqual([]);
  });

  test("rules activated earlier in the session come back after each compaction, once", () => {
    for (const window of session.windows.slice(1)) {
      const first = requestText(window[0] as (typeof window)[number]);
      expect(count(first, CACHE_MARK.ts)).toBe(1);
      expect(count(first, CACHE_MARK.keyword)).toBe(1);
      expect(count(first, CACHE_MARK.reloadedAfter)).toBe(1);
      expect(count(first, CACHE_MARK.reloadedBefore)).toBe(0);
    }
  });
});
