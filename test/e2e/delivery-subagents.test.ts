/**
 * Issue 3, point 4 — "Subagents", in the real OpenCode.
 *
 * A child session created by the `task` tool (`parentID` set) gets the rules
 * before its first prompt (plugin option `subagents`, default on), and the
 * task result returned to the parent is the child's real answer. With
 * `subagents: false` the child gets no rules at all (the parent still does).
 * delivery-order.test.ts runs the default case 20 times for timing.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { toolResults } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import {
  EACH_ONCE,
  NONE,
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
import { createSession, getMessages, prompt, toolParts, unwrap, waitForIdle } from "./harness/wait.js";

describe("subagents (real OpenCode)", { timeout: 60_000 }, () => {
  let on: OpencodeInstance;
  let off: OpencodeInstance;

  beforeAll(async () => {
    [on, off] = await Promise.all([
      startOpencode({ pluginPath: PLUGIN_UNDER_TEST, ...alwaysRuleFiles() }),
      startOpencode({ pluginPath: PLUGIN_UNDER_TEST, pluginOptions: { subagents: false }, ...alwaysRuleFiles() }),
    ]);
    on.fakeModel.respond(delegatingResponder);
    off.fakeModel.respond(delegatingResponder);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([on?.stop(), off?.stop()]);
  });

  /** Runs a parent turn that delegates to a subagent; returns the ids and the task result. */
  async function delegate(oc: OpencodeInstance, n: number) {
    const { id } = await createSession(oc.client);
    await prompt(oc.client, id, `DELEGATE-${n} to a subagent`);
    await waitForIdle(oc.client, id);
    const children = unwrap(await oc.client.session.children({ path: { id } }), "session.children");
    expect(children).toHaveLength(1);
    const child = children[0]!;
    await waitForIdle(oc.client, child.id);
    const task = toolParts(await getMessages(oc.client, id), "task")[0];
    expect(task?.state.status).toBe("completed");
    return { parent: id, child: child.id, taskOutput: task?.state.status === "completed" ? task.state.output : "" };
  }

  test("default: the task's child session gets the rules before its first prompt, and the parent gets the child's answer", async () => {
    const { parent, child, taskOutput } = await delegate(on, 1);
    const messages = await getMessages(on.client, child);
    const rules = visibleRulesParts(messages);
    expect(rules).toHaveLength(1);
    expect(messages.flatMap((m) => m.parts).indexOf(rules[0]!.part as never)).toBeLessThan(
      indexOfUserText(messages, childPrompt(1)),
    );
    const [first, ...more] = on.fakeModel.mainRequests(child);
    expect(more).toHaveLength(0);
    expect(ruleCounts(first!)).toEqual(EACH_ONCE);
    expect(lastMessage(first!).text.trimEnd().endsWith(childPrompt(1))).toBe(true);
    expect(taskOutput).toContain(childAnswer(1));
    expect(
      toolResults(on.fakeModel.mainRequests(parent).at(-1)!)
        .map((t) => t.text)
        .join("\n"),
    ).toContain(childAnswer(1));
  });

  test("subagents: false: the child gets no rules; the parent still does; the task result is the child's answer", async () => {
    const { parent, child, taskOutput } = await delegate(off, 2);
    const messages = await getMessages(off.client, child);
    expect(visibleRulesParts(messages)).toHaveLength(0);
    const childRequests = off.fakeModel.mainRequests(child);
    expect(childRequests).toHaveLength(1);
    expect(ruleCounts(childRequests[0]!)).toEqual(NONE);
    expect(lastMessage(childRequests[0]!).text.trimEnd().endsWith(childPrompt(2))).toBe(true);
    expect(taskOutput).toContain(childAnswer(2));
    expect(ruleCounts(off.fakeModel.mainRequests(parent)[0]!)).toEqual(EACH_ONCE);
  });
});
