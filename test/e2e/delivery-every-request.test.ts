/**
 * Issue 3, point 6 — "Every request", in the real OpenCode.
 *
 * A scripted session: created, three turns with tool calls (read of a project
 * file, write), a manual compaction, two more turns, an automatic compaction,
 * one more turn. Every request the model receives for it, other than title
 * generation and the compaction summary itself, holds each always-on rule
 * exactly once, and the session costs no model request beyond the script.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isSummaryRequest, type Reply } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { EACH_ONCE, PLUGIN_UNDER_TEST, alwaysRuleFiles, lastMessage, ruleCounts } from "./harness/rules.js";
import { createSession, prompt, sleep, toolParts, getMessages, unwrap, waitForIdle } from "./harness/wait.js";

const MODEL = { providerID: "fake", modelID: "fake-model" };

describe("every request holds the rules once (real OpenCode)", { timeout: 60_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    oc = await startOpencode({
      pluginPath: PLUGIN_UNDER_TEST,
      ...alwaysRuleFiles(),
      projectFiles: { "src/app.ts": "export const answer = 42; // APP-CONTENT\n", "README.md": "# fixture\n" },
    });
  }, 60_000);

  afterAll(async () => {
    await oc?.stop();
  });

  test("a scripted session: tool turns, manual compaction, more turns, automatic compaction, one more turn", async () => {
    const model = oc.fakeModel;
    const app = path.join(oc.projectDir, "src", "app.ts");
    const out = (n: number) => path.join(oc.projectDir, "notes", `out-${n}.txt`);
    const { id } = await createSession(oc.client);
    const turn = async (text: string, ...replies: Reply[]) => {
      model.enqueue(...replies);
      await prompt(oc.client, id, text);
      await waitForIdle(oc.client, id);
      expect(model.queue).toHaveLength(0);
    };
    const expected: string[] = [];
    const step = (label: string, requests: number) =>
      expected.push(...Array.from({ length: requests }, (_, i) => `${label}#${i + 1}`));

    await turn("TURN-1: look at the app", { toolCalls: [{ name: "read", arguments: { filePath: app } }] }, "read it");
    step("turn 1", 2);
    await turn(
      "TURN-2: write a note",
      { toolCalls: [{ name: "write", arguments: { filePath: out(1), content: "note one\n" } }] },
      "wrote it",
    );
    step("turn 2", 2);
    await turn(
      "TURN-3: read then write",
      { toolCalls: [{ name: "read", arguments: { filePath: app } }] },
      { toolCalls: [{ name: "write", arguments: { filePath: out(2), content: "note two\n" } }] },
      "done both",
    );
    step("turn 3", 3);
    const tools = toolParts(await getMessages(oc.client, id));
    expect(tools.map((t) => `${t.tool}:${t.state.status}`)).toEqual([
      "read:completed",
      "write:completed",
      "read:completed",
      "write:completed",
    ]);

    unwrap(await oc.client.session.summarize({ path: { id }, body: MODEL }), "session.summarize");
    await waitForIdle(oc.client, id);
    await turn("TURN-4: after the summary", "four");
    step("turn 4", 1);
    await turn("TURN-5: read again", { toolCalls: [{ name: "read", arguments: { filePath: app } }] }, "five");
    step("turn 5", 2);

    // The answer reports an overflowing prompt: OpenCode compacts and continues on its own.
    await turn("TURN-6: a big one", { text: "big answer", usage: { prompt_tokens: 99_000, completion_tokens: 500 } });
    step("turn 6", 1);
    step("continue after automatic compaction", 1);
    await sleep(500);
    await waitForIdle(oc.client, id);
    await turn("TURN-7: last one", "seven");
    step("turn 7", 1);
    await sleep(300);

    expect(model.summaryRequests().filter((r) => r.sessionID === id)).toHaveLength(2);
    const main = model.mainRequests(id);
    const report = main.map((r, i) => ({
      step: expected[i] ?? "unexpected",
      last: `${lastMessage(r).role}: ${lastMessage(r).text.slice(0, 40)}`,
      rules: ruleCounts(r),
    }));
    // Every main request holds each always-on rule exactly once…
    expect(report.filter((r) => JSON.stringify(r.rules) !== JSON.stringify(EACH_ONCE))).toEqual([]);
    // …and there is no request beyond the script (a rules message answered as a turn of its own would add one).
    expect(report.map((r) => r.step)).toEqual(expected);
    expect(main.every((r) => !isSummaryRequest(r))).toBe(true);
  });
});
