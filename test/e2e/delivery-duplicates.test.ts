/**
 * Issue 3, point 5 — "No duplicates", in the real OpenCode.
 *
 * A fork copies its parent's history, rules included (`session.created`
 * fires for the fork before the copy may be complete): its first request
 * holds each rule once. After a restart of OpenCode the plugin knows nothing
 * of the old sessions and must read their history back: an old session's
 * next prompt holds each rule once, and a compaction of an old session
 * (manual, even before any prompt; or automatic) delivers once, without
 * switching the session's agent.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isSummaryRequest, type RecordedRequest } from "./harness/fake-model.js";
import { startFakeModel, type FakeModel } from "./harness/fake-model-server.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import {
  EACH_ONCE,
  PLUGIN_UNDER_TEST,
  alwaysRuleFiles,
  isRulesPart,
  lastMessage,
  restartOpencode,
  ruleCounts,
  visibleRulesParts,
  waitForRulesStored,
  type RestartedOpencode,
} from "./harness/rules.js";
import { getMessages, prompt, sleep, unwrap, waitForIdle, type SessionMessage } from "./harness/wait.js";
import type { OpencodeClient } from "@opencode-ai/sdk";

const MODEL = { providerID: "fake", modelID: "fake-model" };

/** Visible rules parts the model would see: from the last compaction message on. */
function rulesInWindow(messages: SessionMessage[]): number {
  let at = 0;
  messages.forEach((m, i) => {
    if (m.parts.some((p) => p.type === "compaction")) at = i;
  });
  return visibleRulesParts(messages.slice(at)).length;
}

/** Sends a user turn; returns the main requests it caused. */
async function turn(
  client: OpencodeClient,
  model: FakeModel,
  id: string,
  text: string,
  agent?: string,
): Promise<RecordedRequest[]> {
  const before = model.mainRequests(id).length;
  await prompt(client, id, text, agent ? { agent } : {});
  await waitForIdle(client, id);
  await sleep(300);
  return model.mainRequests(id).slice(before);
}

describe("no duplicates: fork, and a restart of OpenCode", { timeout: 60_000 }, () => {
  let model: FakeModel;
  let first: OpencodeInstance;
  let second: RestartedOpencode | undefined;
  const old: Record<"plain" | "compact" | "auto", string> = { plain: "", compact: "", auto: "" };

  beforeAll(async () => {
    model = await startFakeModel();
    // keepTmp + our own fake model: stopping the first server keeps the folders (database included) and the model.
    first = await startOpencode({
      pluginPath: PLUGIN_UNDER_TEST,
      ...alwaysRuleFiles(),
      fakeModel: model,
      keepTmp: true,
    });
    await Promise.all(
      (Object.keys(old) as Array<keyof typeof old>).map(async (key) => {
        const { id } = unwrap(await first.client.session.create({ body: {} }), "session.create");
        await waitForRulesStored(first.client, id);
        await turn(first.client, model, id, `OLD-${key}: before the restart`, key === "compact" ? "plan" : undefined);
        old[key] = id;
      }),
    );
  }, 60_000);

  /** The second OpenCode, on the first one's folders (the first is stopped at the first call). */
  let restarting: Promise<RestartedOpencode> | undefined;
  const restarted = () =>
    (restarting ??= (async () => {
      await first.stop();
      second = await restartOpencode(first);
      return second;
    })());

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await model?.close();
    if (first) fs.rmSync(first.rootDir, { recursive: true, force: true, maxRetries: 3 });
  });

  test("a fork of a session holding the rules: its first request holds each rule once", async () => {
    const { id } = unwrap(await first.client.session.create({ body: {} }), "session.create");
    await waitForRulesStored(first.client, id);
    await turn(first.client, model, id, "FORK-BASE: first turn");
    await turn(first.client, model, id, "FORK-BASE: second turn");

    const fork = unwrap(await first.client.session.fork({ path: { id }, body: {} }), "session.fork");
    expect(fork.id).not.toBe(id);
    // Prompted right away: the plugin sees `session.created` for the fork while its history is being copied.
    const requests = await turn(first.client, model, fork.id, "FORK-NEXT: go on in the fork");
    expect(requests).toHaveLength(1);
    expect(ruleCounts(requests[0]!)).toEqual(EACH_ONCE);
    expect(lastMessage(requests[0]!).text.trimEnd().endsWith("FORK-NEXT: go on in the fork")).toBe(true);
    expect(rulesInWindow(await getMessages(first.client, fork.id))).toBe(1);

    // And the fork's next turn still holds them once.
    const next = await turn(first.client, model, fork.id, "FORK-NEXT: one more");
    expect(next.map(ruleCounts)).toEqual([EACH_ONCE]);
  });

  test("an old session's next prompt holds each rule once", async () => {
    const { client } = await restarted();
    const requests = await turn(client, model, old.plain, "AFTER-RESTART: next step");
    expect(requests).toHaveLength(1);
    expect(ruleCounts(requests[0]!)).toEqual(EACH_ONCE);
    expect(rulesInWindow(await getMessages(client, old.plain))).toBe(1);
  });

  test("a manual compaction of an old session (before any prompt) delivers once, keeping its agent", async () => {
    const { client } = await restarted();
    const id = old.compact;
    const mainBefore = model.mainRequests(id).length;
    unwrap(await client.session.summarize({ path: { id }, body: MODEL }), "session.summarize");
    await waitForRulesAfterCompaction(client, id);
    await sleep(500);
    expect(model.mainRequests(id)).toHaveLength(mainBefore);
    // The re-delivery did not switch this plan session to the default agent.
    expect((unwrap(await client.session.get({ path: { id } }), "session.get") as { agent?: string }).agent).toBe(
      "plan",
    );

    const requests = await turn(client, model, id, "AFTER-RESTART: after the summary", "plan");
    expect(requests).toHaveLength(1);
    expect(ruleCounts(requests[0]!)).toEqual(EACH_ONCE);
    expect(rulesInWindow(await getMessages(client, id))).toBe(1);
  });

  test("an automatic compaction of an old session delivers once, with no extra turn", async () => {
    const { client } = await restarted();
    const id = old.auto;
    model.enqueue({ text: "big answer", usage: { prompt_tokens: 99_000, completion_tokens: 500 } });
    const firstTurn = await turn(client, model, id, "AFTER-RESTART: read everything");
    expect(ruleCounts(firstTurn[0]!)).toEqual(EACH_ONCE);
    const summary = model.requests.find((r) => isSummaryRequest(r) && r.sessionID === id);
    expect(summary).toBeDefined();
    await sleep(500);
    const after = model.mainRequests(id).filter((r) => r.seq > summary!.seq);
    expect(after).toHaveLength(1);
    expect(ruleCounts(after[0]!)).toEqual(EACH_ONCE);
    const next = await turn(client, model, id, "AFTER-RESTART: next step");
    expect(next.map(ruleCounts)).toEqual([EACH_ONCE]);
    expect(rulesInWindow(await getMessages(client, id))).toBe(1);
  });
});

async function waitForRulesAfterCompaction(client: OpencodeClient, id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const messages = await getMessages(client, id);
    const at = messages.findIndex((m) => m.parts.some((p) => p.type === "compaction"));
    if (at >= 0 && messages.slice(at).some((m) => m.parts.some(isRulesPart))) return;
    if (Date.now() > deadline) throw new Error(`no rules after the compaction of ${id}`);
    await sleep(50);
  }
}
