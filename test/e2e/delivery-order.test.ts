/**
 * Issue 3, point 1 — "Rules come first", under the real OpenCode's timing.
 *
 * (a) A session created and prompted at once (the terminal UI does this):
 *     OpenCode does not await the `event` hook, so the silent rules message
 *     from `session.created` races the user's first message.
 * (b) A subagent started by the `task` tool: OpenCode creates the child and
 *     prompts it immediately.
 * Each run: the rules are stored before the user's first words, the model's
 * first request for that session holds every always-on rule once and ends
 * with the user's text, the model answered the user (not the rules), and a
 * task's result returned to the parent is the child's real answer.
 * 20 runs each, on one OpenCode server (new sessions per run).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { toolResults } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import {
  EACH_ONCE,
  PLUGIN_UNDER_TEST,
  alwaysRuleFiles,
  childAnswer,
  childPrompt,
  delegatingResponder,
  indexOfUserText,
  lastMessage,
  ruleCounts,
  visibleRulesParts,
} from "./harness/rules.js";
import { assistantMessages, getMessages, messageText, prompt, toolParts, unwrap, waitForIdle } from "./harness/wait.js";

const RUNS = 20;

describe("rules come first (real timing)", { timeout: 90_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    oc = await startOpencode({ pluginPath: PLUGIN_UNDER_TEST, ...alwaysRuleFiles() });
    oc.fakeModel.respond(delegatingResponder);
  }, 60_000);

  afterAll(async () => {
    await oc?.stop();
  });

  /** What must hold for one session's first user message; returns the problems found. */
  async function checkFirst(sessionID: string, userText: string, label: string): Promise<string[]> {
    const problems: string[] = [];
    const messages = await getMessages(oc.client, sessionID);
    const rulesParts = visibleRulesParts(messages);
    const userAt = indexOfUserText(messages, userText);
    const flatIndex = (part: unknown) => messages.flatMap((m) => m.parts).indexOf(part as never);
    if (rulesParts.length !== 1) problems.push(`${label}: ${rulesParts.length} visible rules parts stored (want 1)`);
    if (userAt < 0) problems.push(`${label}: user text not stored`);
    else if (rulesParts.length > 0 && flatIndex(rulesParts[0]!.part) > userAt) {
      problems.push(
        `${label}: rules stored after the user's message (order: ${messages.map((m) => `${m.info.role}:${m.parts.map((p) => (p.type === "text" ? p.text.slice(0, 12) : p.type)).join("+")}`).join(" | ")})`,
      );
    }
    const main = oc.fakeModel.mainRequests(sessionID);
    if (main.length !== 1) problems.push(`${label}: ${main.length} model requests (want 1)`);
    const first = main[0];
    if (first) {
      const counts = ruleCounts(first);
      if (JSON.stringify(counts) !== JSON.stringify(EACH_ONCE))
        problems.push(`${label}: first request rule counts ${JSON.stringify(counts)}`);
      const last = lastMessage(first);
      if (last.role !== "user" || !last.text.trimEnd().endsWith(userText)) {
        problems.push(`${label}: first request ends with ${last.role}: ${JSON.stringify(last.text.slice(-80))}`);
      }
    }
    return problems;
  }

  test(`(a) a session created and prompted at once: ${RUNS} runs`, async () => {
    const problems: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const text = `Hello, USER-FIRST-${i}`;
      // No waiting between create and prompt, as the terminal UI does.
      const session = unwrap(await oc.client.session.create({ body: {} }), "session.create");
      const reply = unwrap(
        await oc.client.session.prompt({ path: { id: session.id }, body: { parts: [{ type: "text", text }] } }),
        "session.prompt",
      );
      const answer = reply.parts
        .filter((p) => p.type === "text")
        .map((p) => (p as { text: string }).text)
        .join("");
      if (answer !== `ANSWER-${i}`)
        problems.push(`run ${i}: the model answered ${JSON.stringify(answer)} (it was not asked the user's question)`);
      await waitForIdle(oc.client, session.id);
      problems.push(...(await checkFirst(session.id, text, `run ${i}`)));
      const assistants = assistantMessages(await getMessages(oc.client, session.id));
      if (assistants.length !== 1) problems.push(`run ${i}: ${assistants.length} assistant messages (want 1)`);
    }
    expect(problems).toEqual([]);
  });

  test(`(b) a subagent started by the task tool: ${RUNS} runs`, async () => {
    const problems: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const session = unwrap(await oc.client.session.create({ body: {} }), "session.create");
      await prompt(oc.client, session.id, `DELEGATE-${i} to a subagent`);
      await waitForIdle(oc.client, session.id);
      const children = unwrap(await oc.client.session.children({ path: { id: session.id } }), "session.children");
      if (children.length !== 1) {
        problems.push(`run ${i}: ${children.length} child sessions`);
        continue;
      }
      const child = children[0]!;
      await waitForIdle(oc.client, child.id);
      problems.push(...(await checkFirst(child.id, childPrompt(i), `run ${i} child`)));
      // The delivery kept the subagent's agent: a rules prompt without it would switch the child to the default agent.
      const childAgent = (
        unwrap(await oc.client.session.get({ path: { id: child.id } }), "session.get") as { agent?: string }
      ).agent;
      const childUserAgents = (await getMessages(oc.client, child.id))
        .filter((m) => m.info.role === "user")
        .map((m) => (m.info as { agent?: string }).agent);
      if (childAgent !== "general" || childUserAgents.some((agent) => agent !== "general")) {
        problems.push(
          `run ${i}: child agent ${childAgent}, its user messages' agents ${childUserAgents.join(",")} (want general)`,
        );
      }
      // The task result the parent got is the child's real answer.
      const parentMessages = await getMessages(oc.client, session.id);
      const task = toolParts(parentMessages, "task")[0];
      const output = task?.state.status === "completed" ? task.state.output : `<${task?.state.status}>`;
      if (!output.includes(childAnswer(i)))
        problems.push(`run ${i}: task result ${JSON.stringify(output.slice(0, 200))}`);
      const parentMain = oc.fakeModel.mainRequests(session.id);
      const resultSeen = parentMain.at(-1)
        ? toolResults(parentMain.at(-1)!)
            .map((t) => t.text)
            .join("\n")
        : "";
      if (!resultSeen.includes(childAnswer(i)))
        problems.push(`run ${i}: the parent model saw task result ${JSON.stringify(resultSeen.slice(0, 200))}`);
      if (messageText(assistantMessages(parentMessages).at(-1)!) !== "PARENT-DONE")
        problems.push(`run ${i}: parent did not finish with its own answer`);
      // The parent itself got the rules first too.
      const parentFirst = parentMain[0];
      if (!parentFirst || JSON.stringify(ruleCounts(parentFirst)) !== JSON.stringify(EACH_ONCE))
        problems.push(`run ${i}: parent's first request lacks the rules once`);
    }
    expect(problems).toEqual([]);
  });
});
