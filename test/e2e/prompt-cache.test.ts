/**
 * Issue 17 — the prompt-cache guarantee, in the real OpenCode: within one
 * session, between two compactions, every model request keeps the tools and
 * the system prompt byte-identical and begins with exactly the previous
 * request's messages; the rules only ever add at the end. Checked on a
 * scripted session (`harness/cache-session.ts`) as OpenCode delivers its
 * events, and with the `session.compacted` event reaching the plugin late
 * (0.5 s, 6 s: the user's next message has gone to the model by then), so
 * that the re-delivery after a compaction cannot rely on the event.
 *
 * Issue 13 — and in a session that switches agent as Tab does (the next prompt
 * names another agent): the plugin's notices and newly applying rules only add
 * at the end there too. OpenCode itself changes a request on some switches
 * (measured here): its plan and build-switch reminders ride on the latest user
 * message only, and the `task` tool's description lists fewer subagents for
 * plan. So the switches between build and a custom agent with build's tools
 * are checked byte for byte, and the whole session with just those changes of
 * OpenCode's set aside (harness/prompt-prefix.ts, withoutOpencodeSwitchChanges).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  CACHE_MARK,
  CACHE_PROJECT,
  pairsWithinWindows,
  runCacheSession,
  runSwitchSession,
  SWITCH_MARK,
  SWITCH_PROJECT,
  userWords,
  type CacheSession,
  type SwitchSession,
} from "./harness/cache-session.js";
import { lastUserText, requestText } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { withoutOpencodeSwitchChanges } from "./harness/prompt-prefix.js";
import { countOf as count, PLUGIN_UNDER_TEST, timesIn } from "./harness/rules.js";

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

const breaksOfTheCache = (session: CacheSession, as?: Parameters<typeof pairsWithinWindows>[1]): string[] =>
  pairsWithinWindows(session, as).flatMap(({ where, difference }) => (difference ? [`${where}: ${difference}`] : []));

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
    const counts = session.requests.map(
      (request) => `${lastUserText(request).slice(0, 24)}: ${count(requestText(request), CACHE_MARK.always)}`,
    );
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

describe("every request extends the one before across agent switches (real OpenCode)", () => {
  let oc: OpencodeInstance;
  let session: SwitchSession;

  beforeAll(async () => {
    oc = await startOpencode({ pluginPath: PLUGIN_UNDER_TEST, ...SWITCH_PROJECT });
    session = await runSwitchSession(oc);
  }, 120_000);

  afterAll(async () => {
    await oc?.stop();
  });

  /**
   * Each request as one row: its agent and turn, how often the always-on rule
   * and each scoped rule's block is in it, and how many switch notices of
   * each kind (a rule's text is counted too: it must go with its block).
   */
  const rows = () =>
    session.requests.map((request, i) => {
      const text = requestText(request);
      return [
        `${session.agents[i]} ${userWords(request).split(":")[0]}`,
        timesIn(request, { name: "house", mark: SWITCH_MARK.always }),
        timesIn(request, { name: "plan-notes", mark: SWITCH_MARK.plan }),
        timesIn(request, { name: "build-notes", mark: SWITCH_MARK.build }),
        timesIn(request, { name: "review-notes", mark: SWITCH_MARK.review }),
        timesIn(request, { name: "build-ts", mark: SWITCH_MARK.buildTs }),
        count(text, "Not in effect while you work as agent"),
        count(text, "In effect again now that you work as agent"),
      ];
    });

  test("the script ran as written: one compaction, no model request beyond the script", () => {
    expect(session.windows.map((window) => window.length)).toEqual([14, 3]);
    expect(session.agents.join(" ")).toBe(
      "build build build review review review build build plan plan plan build build build plan plan plan",
    );
  });

  test("build ↔ a custom agent with build's tools: each request keeps the tools, the system prompt and every earlier message byte for byte", () => {
    const firstPlan = session.agents.indexOf("plan");
    const beforePlan: CacheSession = {
      ...session,
      requests: session.requests.slice(0, firstPlan),
      windows: [session.requests.slice(0, firstPlan)],
    };
    expect(beforePlan.requests.length).toBe(8);
    expect(breaksOfTheCache(beforePlan)).toEqual([]);
  });

  test("across plan and build too, once OpenCode's own changes on a switch are set aside", () => {
    expect(breaksOfTheCache(session, withoutOpencodeSwitchChanges)).toEqual([]);
  });

  test("each rule reaches the model once, while its agent works, and each switch says so once, in its own request", () => {
    // turn · house plan build review build-ts · notices "not in effect", "in effect again" (cumulative: the history keeps them)
    expect(rows()).toEqual([
      ["build SWITCH-1", 1, 0, 1, 0, 0, 0, 0],
      ["build SWITCH-2", 1, 0, 1, 0, 0, 0, 0],
      ["build SWITCH-2", 1, 0, 1, 0, 1, 0, 0], // src/app.ts read: the TypeScript rule for build, with the tool's output
      ["review SWITCH-3", 1, 0, 1, 1, 1, 1, 0], // build's two rules set aside, review's given
      ["review SWITCH-3", 1, 0, 1, 1, 1, 1, 0], // src/app.ts read again: nothing for review
      ["review SWITCH-4", 1, 0, 1, 1, 1, 1, 0],
      ["build SWITCH-5", 1, 0, 1, 1, 1, 2, 1], // review's set aside, build's in effect again: no second copy
      ["build SWITCH-5", 1, 0, 1, 1, 1, 2, 1],
      ["plan SWITCH-6", 1, 1, 1, 1, 1, 3, 1],
      ["plan SWITCH-6", 1, 1, 1, 1, 1, 3, 1],
      ["plan SWITCH-7", 1, 1, 1, 1, 1, 3, 1],
      ["build SWITCH-8", 1, 1, 1, 1, 1, 4, 2],
      ["build SWITCH-8", 1, 1, 1, 1, 1, 4, 2],
      ["build SWITCH-9", 1, 1, 1, 1, 1, 4, 2],
      // After the compaction (made while working as build): build's rules again, then the switch to plan sets them aside.
      ["plan SWITCH-10", 1, 1, 1, 0, 1, 1, 0],
      ["plan SWITCH-10", 1, 1, 1, 0, 1, 1, 0],
      ["plan SWITCH-11", 1, 1, 1, 0, 1, 1, 0],
    ]);
  });
});
