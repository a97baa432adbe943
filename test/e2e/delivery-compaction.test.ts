/**
 * Issue 3, point 3 — "After compaction", in the real OpenCode.
 *
 * Compaction drops every earlier message from the model's context, rules
 * included. Manual compaction (`session.summarize`) and automatic compaction
 * (the model reports a prompt that overflows its context) must both end with
 * every always-on rule in the model's next main request, exactly once, and
 * the re-delivery must not cost a model turn of its own: for automatic
 * compaction OpenCode adds "Continue" and keeps working before
 * `session.compacted` fires, so a delivery from that event would come late
 * and be answered as a new turn.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { isSummaryRequest, type RecordedRequest } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { firstDifference } from "./harness/prompt-prefix.js";
import {
  EACH_ONCE,
  PLUGIN_UNDER_TEST,
  alwaysRuleFiles,
  lastMessage,
  ruleCounts,
  rulesAfterLastCompaction,
} from "./harness/rules.js";
import { compact, sessionWithOneTurn, waitForRulesAfterCompaction } from "./harness/turns.js";
import { assistantMessages, getMessages, prompt, sleep, waitForIdle } from "./harness/wait.js";

/** Every test's session had this one ordinary turn first. */
const TURN_1 = "TURN-1: set up the project";

describe("rules after compaction (real OpenCode)", { timeout: 60_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    oc = await startOpencode({ pluginPath: PLUGIN_UNDER_TEST, ...alwaysRuleFiles() });
  }, 60_000);

  afterAll(async () => {
    await oc?.stop();
  });

  beforeEach(() => oc.fakeModel.reset());

  /** Sends a user turn; returns the main requests it caused. */
  async function turn(id: string, text: string): Promise<RecordedRequest[]> {
    const before = oc.fakeModel.mainRequests(id).length;
    await prompt(oc.client, id, text);
    await waitForIdle(oc.client, id);
    await sleep(300);
    return oc.fakeModel.mainRequests(id).slice(before);
  }

  test("manual compaction: the next main request holds the rules once; the re-delivery causes no model turn", async () => {
    const id = await sessionWithOneTurn(oc.client, TURN_1);
    const mainBefore = oc.fakeModel.mainRequests(id).length;
    await compact(oc.client, id);
    await waitForRulesAfterCompaction(oc.client, id);
    await sleep(500);
    // The summary request is not a main request; the delivery itself asked the model nothing.
    expect(oc.fakeModel.summaryRequests().filter((r) => r.sessionID === id)).toHaveLength(1);
    expect(oc.fakeModel.mainRequests(id)).toHaveLength(mainBefore);
    const assistantsBefore = assistantMessages(await getMessages(oc.client, id)).length;

    const requests = await turn(id, "TURN-2: and now the tests");
    expect(requests).toHaveLength(1);
    expect(ruleCounts(requests[0]!)).toEqual(EACH_ONCE);
    expect(lastMessage(requests[0]!)).toMatchObject({ role: "user" });
    expect(lastMessage(requests[0]!).text.trimEnd().endsWith("TURN-2: and now the tests")).toBe(true);
    const messages = await getMessages(oc.client, id);
    expect(rulesAfterLastCompaction(messages)).toBe(1);
    expect(assistantMessages(messages).length - assistantsBefore).toBe(1);
  });

  test("manual compaction then an immediate prompt: the rules still come first, once", async () => {
    const id = await sessionWithOneTurn(oc.client, TURN_1);
    await compact(oc.client, id);
    // No waiting for the re-delivery: the user types on right away.
    const requests = await turn(id, "TURN-2: straight after the summary");
    expect(requests).toHaveLength(1);
    expect(ruleCounts(requests[0]!)).toEqual(EACH_ONCE);
    expect(lastMessage(requests[0]!).text.trimEnd().endsWith("TURN-2: straight after the summary")).toBe(true);
    expect(rulesAfterLastCompaction(await getMessages(oc.client, id))).toBe(1);
  });

  test("automatic compaction: the continuation request holds the rules once; no extra turn; the next turn holds them once", async () => {
    const id = await sessionWithOneTurn(oc.client, TURN_1);
    // The next answer reports a prompt that overflows the context: OpenCode compacts and continues on its own.
    oc.fakeModel.enqueue({ text: "big answer", usage: { prompt_tokens: 99_000, completion_tokens: 500 } });
    await prompt(oc.client, id, "TURN-2: read everything");
    const [summary] = await oc.fakeModel.waitForRequests(1, {
      filter: (r) => isSummaryRequest(r) && r.sessionID === id,
    });
    await waitForIdle(oc.client, id);
    await sleep(800);
    const after = oc.fakeModel.mainRequests(id).filter((r) => r.seq > summary!.seq);
    // Exactly one request after the summary: OpenCode's own continuation; a late rules message would add another.
    expect(after.map((r) => lastMessage(r).text.slice(0, 60))).toHaveLength(1);
    expect(ruleCounts(after[0]!)).toEqual(EACH_ONCE);
    expect(lastMessage(after[0]!).text).toMatch(/^Continue/);
    expect(rulesAfterLastCompaction(await getMessages(oc.client, id))).toBe(1);

    // The later `session.compacted` event must see this compaction already served.
    const requests = await turn(id, "TURN-3: next step");
    expect(requests).toHaveLength(1);
    expect(ruleCounts(requests[0]!)).toEqual(EACH_ONCE);
    expect(rulesAfterLastCompaction(await getMessages(oc.client, id))).toBe(1);
  });

  test("compaction after a context-overflow error (OpenCode replays the prompt itself): no extra turn, the rules once in every later request", async () => {
    const id = await sessionWithOneTurn(oc.client, TURN_1);
    // The provider refuses the prompt as too long: OpenCode compacts, then replays the user's prompt without the autocontinue hook.
    oc.fakeModel.enqueue(
      {
        error: {
          status: 400,
          message:
            "This model's maximum context length is 1000 tokens. However, your messages resulted in 200000 tokens.",
        },
      },
      "ANSWER-AFTER-OVERFLOW",
    );
    await prompt(oc.client, id, "TURN-2: a prompt too long for the model");
    const [summary] = await oc.fakeModel.waitForRequests(1, {
      filter: (r) => isSummaryRequest(r) && r.sessionID === id,
      timeoutMs: 15_000,
    });
    await waitForIdle(oc.client, id);
    await sleep(1000);
    const after = oc.fakeModel.mainRequests(id).filter((r) => r.seq > summary!.seq);
    // One request after the summary (the replayed prompt); a rules message taken for a new prompt would add another.
    expect(after).toHaveLength(1);
    expect(lastMessage(after[0]!).text).toContain("TURN-2: a prompt too long for the model");
    for (const count of Object.values(ruleCounts(after[0]!))) expect(count.blocks).toBeLessThanOrEqual(1);

    // The replay went to the model before any hook the plugin has: a rules message could only go before it. The
    // next message carries the rules, once, and keeps the replay's request exactly as it was sent.
    const requests = await turn(id, "TURN-3: next step");
    expect(requests).toHaveLength(1);
    expect(ruleCounts(requests[0]!)).toEqual(EACH_ONCE);
    expect(firstDifference(after[0]!.body, requests[0]!.body)).toBeUndefined();
  });
});
