/**
 * A scripted session in the real OpenCode that touches every way rules reach
 * the model (issue 17): the silent first delivery, plain turns, a file read
 * that activates a glob rule, a write, a keyword, an `@mention`, the `rule`
 * tool, a hot-reloaded rule, a manual compaction, an automatic one. The
 * prompt-cache test (`test/e2e/prompt-cache.test.ts`) and the benchmark
 * (`bench/prompt-cache.ts`) both run it: the test with the plugin, the bench
 * with and without. `runSwitchSession` is a second script, for the test only:
 * a session that switches agent (issue 13).
 */
import fs from "node:fs";
import path from "node:path";
import type { ChatRequestBody, RecordedRequest, Reply } from "./fake-model.js";
import type { OpencodeInstance, StartOptions } from "./opencode.js";
import { firstDifference } from "./prompt-prefix.js";
import { alwaysRule as always, partsByKind, rulesAfterLastCompaction, scopedRule } from "./rules.js";
import { createSession, getMessages, prompt, sleep, unwrap, waitFor, waitForIdle } from "./wait.js";

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

/**
 * Each consecutive pair of requests within one window: where it is, and how
 * the later fails to extend the earlier (undefined: it does). `as` reads each
 * request's body first (default: as sent).
 */
export function pairsWithinWindows(
  session: CacheSession,
  as: (body: ChatRequestBody) => ChatRequestBody = (body) => body,
): Array<{ where: string; difference?: string }> {
  return session.windows.flatMap((window, w) =>
    window.slice(1).map((later, i) => {
      const earlier = window[i] as RecordedRequest;
      return {
        where: `window ${w + 1}, request ${i + 1} → ${i + 2} ("${userWords(later).slice(0, 40)}")`,
        difference: firstDifference(as(earlier.body), as(later.body)),
      };
    }),
  );
}

/** The user's own words in a request's last user message: its text without the plugin's rules message and OpenCode's reminders. */
export function userWords(request: RecordedRequest): string {
  const last = request.body.messages.filter((message) => message.role === "user").at(-1);
  return partsByKind(last?.content)
    .filter((part) => part.kind === "text")
    .map((part) => part.text)
    .join("\n");
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
    if (fakeModel.queue.length > 0)
      throw new Error(`the turn "${text}" ended with ${fakeModel.queue.length} scripted replies unused`);
  };

  await turn("TURN-1: hello.", "hello");
  await turn("TURN-2: look at the app.", { toolCalls: [{ name: "read", arguments: { filePath: app } }] }, "read it");
  await turn(
    "TURN-3: write a note.",
    {
      toolCalls: [
        { name: "write", arguments: { filePath: path.join(oc.projectDir, "notes", "a.txt"), content: "note\n" } },
      ],
    },
    "wrote it",
  );
  await turn("TURN-4: plan the migration.", "planned");
  await turn("TURN-5: follow @release for this.", "followed");
  await turn("TURN-6: store the API key.", { toolCalls: [{ name: "rule", arguments: { name: "secrets" } }] }, "stored");
  fs.writeFileSync(path.join(oc.projectRulesDir, "reloaded.md"), always("Reloaded", CACHE_MARK.reloadedAfter));
  await sleep(WATCHER_SETTLE_MS);
  await turn("TURN-7: carry on.", "carried on");

  unwrap(await client.session.summarize({ path: { id }, body: MODEL }), "session.summarize");
  // The user types at once, as the compaction's event may still be on its way.
  await waitForIdle(client, id);
  await turn(
    "TURN-8: after the summary, read the app again.",
    { toolCalls: [{ name: "read", arguments: { filePath: app } }] },
    "read again",
  );
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

  return recordedSession(oc, id);
}

/** What the model received for a session: its main requests, and the same split at each compaction. */
function recordedSession({ fakeModel }: OpencodeInstance, id: string): CacheSession {
  const requests = fakeModel.mainRequests(id);
  const summaries = fakeModel.summaryRequests().filter((request) => request.sessionID === id);
  const windows: RecordedRequest[][] = Array.from({ length: summaries.length + 1 }, () => []);
  for (const request of requests)
    windows[summaries.filter((summary) => summary.seq < request.seq).length]?.push(request);
  return { sessionID: id, requests, windows };
}

export const SWITCH_MARK = {
  always: "MARK-SWITCH-ALWAYS-3e9",
  plan: "MARK-SWITCH-PLAN-71b",
  build: "MARK-SWITCH-BUILD-0d4",
  review: "MARK-SWITCH-REVIEW-c58",
  buildTs: "MARK-SWITCH-BUILD-TS-9fa",
} as const;

/** The custom primary agent the switching session works as; given `question` so that its tools are build's, byte for byte. */
const REVIEW_AGENT = { mode: "primary", description: "Reviews the changes", permission: { question: "allow" } };

/** Project rules, files and config (the `review` agent) for `startOpencode`, for `runSwitchSession`. */
export const SWITCH_PROJECT: Pick<StartOptions, "projectRules" | "projectFiles" | "config"> = {
  projectRules: {
    "house.md": always("House", `${SWITCH_MARK.always}: be brief.`),
    "plan-notes.md": scopedRule("agents: [plan]", "Planning", `${SWITCH_MARK.plan}: list the steps first.`),
    "build-notes.md": scopedRule("agents: [build]", "Building", `${SWITCH_MARK.build}: run the tests after each edit.`),
    "review-notes.md": scopedRule("agents: [review]", "Reviewing", `${SWITCH_MARK.review}: name the file and line.`),
    "build-ts.md": scopedRule(
      "agents: [build]\nglobs: src/**/*.ts",
      "TypeScript when building",
      `${SWITCH_MARK.buildTs}: no \`any\`.`,
    ),
  },
  projectFiles: { "src/app.ts": "export const answer = 42;\n", "README.md": "# fixture\n" },
  config: { agent: { review: REVIEW_AGENT } },
};

/** A session of `runSwitchSession`: what the model received, and the agent each request worked as. */
export interface SwitchSession extends CacheSession {
  /** The agent of each request in `requests`, in order. */
  agents: string[];
}

/**
 * Runs a session that switches agent as a user does with Tab (the next prompt
 * names another agent) on a started instance (`SWITCH_PROJECT` installed):
 * build, the custom `review` agent, build, plan, build (a file read in a turn
 * of each), then a manual compaction and two plan turns.
 */
export async function runSwitchSession(oc: OpencodeInstance): Promise<SwitchSession> {
  const { client, fakeModel } = oc;
  const app = path.join(oc.projectDir, "src", "app.ts");
  const { id } = await createSession(client);
  await sleep(SILENT_DELIVERY_MS);
  const agentOfTurn = new Map<string, string>();

  const turn = async (agent: string, text: string, ...replies: Reply[]) => {
    fakeModel.queue.length = 0;
    fakeModel.enqueue(...replies);
    agentOfTurn.set(text, agent);
    await prompt(client, id, text, { agent });
    await waitForIdle(client, id);
    if (fakeModel.queue.length > 0)
      throw new Error(`the turn "${text}" ended with ${fakeModel.queue.length} scripted replies unused`);
  };
  const read = { toolCalls: [{ name: "read", arguments: { filePath: app } }] };

  await turn("build", "SWITCH-1: hello.", "hello");
  await turn("build", "SWITCH-2: look at the app.", read, "read it");
  await turn("review", "SWITCH-3: review the app.", read, "reviewed");
  await turn("review", "SWITCH-4: anything else?", "nothing");
  await turn("build", "SWITCH-5: back to building.", read, "building");
  await turn("plan", "SWITCH-6: plan the next step.", read, "planned");
  await turn("plan", "SWITCH-7: more of the plan.", "more");
  await turn("build", "SWITCH-8: build it.", read, "built");
  await turn("build", "SWITCH-9: one more.", "one more");
  unwrap(await client.session.summarize({ path: { id }, body: MODEL }), "session.summarize");
  await waitForIdle(client, id);
  // The rules given again after the compaction, for the agent it was made as (build), before the user switches to plan:
  // typing at once instead is the cache session's case, and the plugin's answer then depends on when the compaction's event arrives.
  await waitFor(async () => rulesAfterLastCompaction(await getMessages(client, id)) > 0, {
    message: "rules given again after the compaction",
    timeoutMs: 15_000,
  });
  await turn("plan", "SWITCH-10: after the summary, plan again.", read, "planned again");
  await turn("plan", "SWITCH-11: last one.", "last");
  await sleep(300);

  const session = recordedSession(oc, id);
  return { ...session, agents: session.requests.map((request) => agentOfTurn.get(userWords(request)) ?? "?") };
}
