/**
 * A scripted session in the real OpenCode that touches every way rules reach
 * the model (issue 17): the silent first delivery, plain turns, a file read
 * that activates a glob rule, a write, a keyword, an `@mention`, the `rule`
 * tool, a hot-reloaded rule, a manual compaction, an automatic one. The
 * prompt-cache test (`test/e2e/prompt-cache.test.ts`) and the benchmark
 * (`bench/prompt-cache.ts`) both run it: the test with the plugin, the bench
 * with and without.
 */
import fs from "node:fs";
import path from "node:path";
import { lastUserText, type RecordedRequest, type Reply } from "./fake-model.js";
import type { OpencodeInstance, StartOptions } from "./opencode.js";
import { firstDifference } from "./prompt-prefix.js";
import { alwaysRule as always } from "./rules.js";
import { createSession, prompt, sleep, unwrap, waitForIdle } from "./wait.js";

const MODEL = { providerID: "fake", modelID: "fake-model" };
/** The plugin's file watcher needs a moment after a rule file changes. */
const WATCHER_SETTLE_MS = 250;
/** Time for a new session's silent rules message (the plugin waits 300 ms first). */
const SILENT_DELIVERY_MS = 1_000;

export const CACHE_MARK = {
  always: "MARK-CACHE-ALWAYS-1f0",
  ts: "MARK-CACHE-TS-6a2",
  keyword: "MARK-CACHE-MIGRATION-93d",
  mention: "MARK-CACHE-RELEASE-4b7",
  onRequest: "MARK-CACHE-SECRETS-e15",
  reloadedBefore: "MARK-CACHE-RELOAD-V1-2c8",
  reloadedAfter: "MARK-CACHE-RELOAD-V2-7d1",
} as const;

/** Project rules and files for `startOpencode`. */
export const CACHE_PROJECT: Pick<StartOptions, "projectRules" | "projectFiles"> = {
  projectRules: {
    "house.md": always("House", `${CACHE_MARK.always}: be brief.`),
    "ts-code.md": `---\nglobs: src/**/*.ts\n---\n# TypeScript\n- ${CACHE_MARK.ts}: no \`any\`.\n`,
    "migrations.md": `---\nkeywords: [migration]\n---\n# Migrations\n- ${CACHE_MARK.keyword}: every migration has a down step.\n`,
    "release.md": `---\nalwaysApply: false\n---\n# Release\n- ${CACHE_MARK.mention}: bump the version first.\n`,
    "secrets.md": `---\ndescription: Handling secrets and credentials\nalwaysApply: false\n---\n# Secrets\n- ${CACHE_MARK.onRequest}: never print a token.\n`,
    "reloaded.md": always("Reloaded", CACHE_MARK.reloadedBefore),
  },
  projectFiles: { "src/app.ts": "export const answer = 42;\n", "README.md": "# fixture\n" },
};

export interface CacheSession {
  sessionID: string;
  /** The session's main model requests (no title or summary requests), in order. */
  requests: RecordedRequest[];
  /** The same requests, one list per context window: a compaction starts the next. */
  windows: RecordedRequest[][];
}

/** Each consecutive pair of requests within one window: where it is, and how the later fails to extend the earlier (undefined: it does). */
export function pairsWithinWindows(session: CacheSession): Array<{ where: string; difference?: string }> {
  return session.windows.flatMap((window, w) =>
    window.slice(1).map((later, i) => {
      const earlier = window[i] as RecordedRequest;
      return { where: `window ${w + 1}, request ${i + 1} → ${i + 2} ("${lastUserText(later).slice(0, 40)}")`, difference: firstDifference(earlier.body, later.body) };
    }),
  );
}

/** Runs the script on a started instance (`CACHE_PROJECT` installed) and returns what the model received. */
export async function runCacheSession(oc: OpencodeInstance): Promise<CacheSession> {
  const { client, fakeModel } = oc;
  const app = path.join(oc.projectDir, "src", "app.ts");
  const { id } = await createSession(client);
  await sleep(SILENT_DELIVERY_MS);

  const turn = async (text: string, ...replies: Reply[]) => {
    fakeModel.queue.length = 0;
    fakeModel.enqueue(...replies);
    await prompt(client, id, text);
    await waitForIdle(client, id);
    if (fakeModel.queue.length > 0) throw new Error(`the turn "${text}" ended with ${fakeModel.queue.length} scripted replies unused`);
  };

  await turn("TURN-1: hello.", "hello");
  await turn("TURN-2: look at the app.", { toolCalls: [{ name: "read", arguments: { filePath: app } }] }, "read it");
  await turn("TURN-3: write a note.", { toolCalls: [{ name: "write", arguments: { filePath: path.join(oc.projectDir, "notes", "a.txt"), content: "note\n" } }] }, "wrote it");
  await turn("TURN-4: plan the migration.", "planned");
  await turn("TURN-5: follow @release for this.", "followed");
  await turn("TURN-6: store the API key.", { toolCalls: [{ name: "rule", arguments: { name: "secrets" } }] }, "stored");
  fs.writeFileSync(path.join(oc.projectRulesDir, "reloaded.md"), always("Reloaded", CACHE_MARK.reloadedAfter));
  await sleep(WATCHER_SETTLE_MS);
  await turn("TURN-7: carry on.", "carried on");

  unwrap(await client.session.summarize({ path: { id }, body: MODEL }), "session.summarize");
  // The user types at once, as the compaction's event may still be on its way.
  await waitForIdle(client, id);
  await turn("TURN-8: after the summary, read the app again.", { toolCalls: [{ name: "read", arguments: { filePath: app } }] }, "read again");
  await turn("TURN-9: one more.", "one more");
  // Time for a late compaction event (0.5 s) to reach the plugin while this window goes on.
  await sleep(1_000);
  await turn("TURN-10: and another.", "another");

  // The answer reports an overflowing prompt: OpenCode compacts and continues on its own.
  await turn("TURN-11: a big one.", { text: "big answer", usage: { prompt_tokens: 99_000, completion_tokens: 500 } });
  await sleep(500);
  await waitForIdle(client, id);
  await turn("TURN-12: last one.", "last");
  await sleep(300);

  const requests = fakeModel.mainRequests(id);
  const summaries = fakeModel.summaryRequests().filter((request) => request.sessionID === id);
  const windows: RecordedRequest[][] = Array.from({ length: summaries.length + 1 }, () => []);
  for (const request of requests) windows[summaries.filter((summary) => summary.seq < request.seq).length]?.push(request);
  return { sessionID: id, requests, windows };
}
