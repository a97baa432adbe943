/**
 * Issue 3, point 2 — "Silent means silent", in the real OpenCode.
 *
 * A rules message causes no model request and no assistant reply; it is
 * `synthetic` (hidden in the terminal UI) and marked as the plugin's; the
 * session still gets its generated title (OpenCode titles a session only
 * while it has exactly one non-synthetic user message); and a delivery never
 * switches the session's agent (a prompt without `agent` resets a `plan`
 * session to `build`).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isTitleRequest, requestText } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import {
  MARKER_KEY,
  PLUGIN_UNDER_TEST,
  alwaysRuleFiles,
  isRulesPart,
  visibleRulesParts,
  waitForRulesStored,
} from "./harness/rules.js";
import { compact, FAKE_MODEL, sessionWithOneTurn, waitForRulesAfterCompaction } from "./harness/turns.js";
import {
  assistantMessages,
  createSession,
  getMessages,
  prompt,
  sleep,
  unwrap,
  userMessages,
  waitFor,
  waitForIdle,
} from "./harness/wait.js";

const TITLE = "Rulebook Titled Session";

describe("silent means silent (real OpenCode)", { timeout: 60_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    oc = await startOpencode({
      pluginPath: PLUGIN_UNDER_TEST,
      ...alwaysRuleFiles(),
      fakeModelOptions: { titleReply: TITLE },
    });
  }, 60_000);

  afterAll(async () => {
    await oc?.stop();
  });

  const sessionInfo = async (id: string) =>
    unwrap(await oc.client.session.get({ path: { id } }), "session.get") as {
      title: string;
      agent?: string;
      model?: { id?: string; providerID?: string };
    };

  test("a session that holds the rules but got no prompt: no model request, no assistant message, a synthetic marked part", async () => {
    const before = oc.fakeModel.requests.length;
    const { id } = await createSession(oc.client);
    await waitForRulesStored(oc.client, id);
    await sleep(800);
    expect(oc.fakeModel.requests.length - before).toBe(0);
    expect(oc.fakeModel.requestsFor(id)).toHaveLength(0);

    const messages = await getMessages(oc.client, id);
    expect(assistantMessages(messages)).toHaveLength(0);
    expect(messages.map((m) => m.info.role)).toEqual(["user"]);
    const parts = messages[0]!.parts;
    expect(parts.every(isRulesPart)).toBe(true);
    for (const part of parts) {
      expect(part).toMatchObject({ type: "text", synthetic: true });
      expect((part as { metadata?: Record<string, unknown> }).metadata?.[MARKER_KEY]).toMatchObject({ kind: "rules" });
    }
    const status = unwrap(await oc.client.session.status(), "session.status") as Record<string, { type: string }>;
    expect(status[id]?.type ?? "idle").toBe("idle");
  });

  test("the session still gets its generated title after the first prompt", async () => {
    const id = await sessionWithOneTurn(oc.client, "Please add a login form");
    const title = await waitFor(async () => ((await sessionInfo(id)).title === TITLE ? TITLE : undefined), {
      message: "generated title",
      timeoutMs: 10_000,
    }).catch(() => undefined);
    const titleRequests = oc.fakeModel.requestsFor(id).filter(isTitleRequest);
    expect({ title: title ?? (await sessionInfo(id)).title, titleRequests: titleRequests.length }).toEqual({
      title: TITLE,
      titleRequests: 1,
    });
    // Every stored rules part is synthetic, so only the user's message counts as the one real user message.
    const messages = await getMessages(oc.client, id);
    expect(visibleRulesParts(messages).every((p) => p.part.synthetic === true)).toBe(true);
    expect(userMessages(messages).filter((m) => m.parts.some((p) => p.type === "text" && !p.synthetic))).toHaveLength(
      1,
    );
  });

  test("deliveries keep the session's agent: a plan session stays plan through a compaction's re-delivery", async () => {
    const { id } = await createSession(oc.client);
    await prompt(oc.client, id, "PLAN-TURN-1: think about the design", { agent: "plan" });
    await waitForIdle(oc.client, id);
    expect((await sessionInfo(id)).agent).toBe("plan");

    // Manual compaction: the plugin delivers the rules again (a silent prompt).
    await compact(oc.client, id);
    await waitForRulesAfterCompaction(oc.client, id);
    await sleep(300);
    // Nothing but the delivery happened since: the session's agent is still the user's.
    const afterDelivery = await sessionInfo(id);
    expect(afterDelivery.agent).toBe("plan");
    expect(afterDelivery.model?.id ?? FAKE_MODEL.modelID).toBe(FAKE_MODEL.modelID);

    const before = oc.fakeModel.mainRequests(id).length;
    await prompt(oc.client, id, "PLAN-TURN-2: go on planning", { agent: "plan" });
    await waitForIdle(oc.client, id);
    const turn = oc.fakeModel.mainRequests(id).slice(before);
    expect(turn).toHaveLength(1);
    expect(requestText(turn[0]!)).not.toContain("operational mode has changed");

    const messages = await getMessages(oc.client, id);
    const firstReal = messages.findIndex(
      (m) => m.info.role === "user" && m.parts.some((p) => p.type === "text" && p.text.includes("PLAN-TURN-1")),
    );
    const agents = messages
      .slice(firstReal)
      .filter((m) => m.info.role === "user")
      .map((m) => `${(m.info as { agent?: string }).agent}${m.parts.some(isRulesPart) ? " (rules)" : ""}`);
    expect(agents.every((a) => a.startsWith("plan"))).toBe(true);
    expect(agents.some((a) => a.endsWith("(rules)"))).toBe(true);
    expect((await sessionInfo(id)).agent).toBe("plan");
  });
});
