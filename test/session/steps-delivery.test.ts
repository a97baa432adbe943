/**
 * The silent delivery's steps (src/session/step-silent.ts): asked for
 * (started, joined, queued after the one under way, or not due), a try's
 * outcome, a failed try's retry after its backoff, the tries running out (left
 * for the session's next event), and a compaction queued meanwhile going
 * next. For each: the delivery under way after, and the effects asked for.
 */
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/session/events.js";
import type { SessionState } from "../../src/session/session.js";
import { DEFAULT_RETRY, type RetryPolicy, type SilentDelivery } from "../../src/session/silent-delivery.js";
import { step } from "../../src/session/step.js";
import { at, holding, named, rules, seen, work } from "./step-fixtures.js";

const under = (attempt: number, extra: Partial<SilentDelivery> = {}): Partial<SessionState> => ({
  silent: { trigger: "new-session", attempt, retry: DEFAULT_RETRY, ...extra },
});
const delivering = under(1);
/** The delivery under way, as the table names it. */
const silentOf = ({ silent }: SessionState): string =>
  silent ? `${silent.trigger} try ${silent.attempt}${silent.queued ? ` then ${silent.queued}` : ""}` : "none";
const asked = (trigger: "new-session" | "compaction", thenWentOn?: boolean, retry: RetryPolicy = DEFAULT_RETRY) =>
  ({ type: "delivery-asked", trigger, retry, ...(thenWentOn ? { thenWentOn } : {}) }) as const;
const notSent = (refused = false): SessionEvent => ({
  type: "rules-not-sent",
  delivery: "d1",
  trigger: "new-session",
  error: refused ? "refused" : "no answer in 100 ms",
  refused,
});
/** A prompt sent as `d1` from an empty window, and the session as it is then. */
const sentFrom = (state: SessionState) => {
  const sending = step(state, { type: "silent-due", trigger: "new-session", rules, freshId: "d1" });
  const send = sending.effects.find((effect) => effect.type === "send-rules");
  if (send?.type !== "send-rules") throw new Error("no send");
  return { state: sending.state, send };
};

describe("each moment of the silent delivery: the delivery under way after, and the effects asked for", () => {
  const table: Array<[string, SessionState, SessionEvent, string, string[]]> = [
    [
      "asked for, none under way: started as a conversation of its own, which the asker waits for",
      at("empty"),
      asked("new-session"),
      "new-session try 1",
      ["start-delivery new-session", "await-delivery for asker"],
    ],
    [
      "a compaction's, asked as the host goes on: started; the host waits for it, bounded",
      at("empty"),
      asked("compaction", true),
      "compaction try 1",
      ["start-delivery compaction", "await-delivery for went-on"],
    ],
    [
      "a new session's asked again while one is under way: joins it, one message",
      at("empty", under(2)),
      asked("new-session"),
      "new-session try 2",
      ["await-delivery for asker"],
    ],
    [
      "a compaction's while one is under way: follows it",
      at("empty", under(1)),
      asked("compaction", true),
      "new-session try 1 then compaction",
      ["await-delivery for went-on"],
    ],
    ["a new session's when the window holds the rules already: not due", holding, asked("new-session"), "none", []],
    [
      "a try when the rules are owed to the next message: the delivery is over",
      at("owed", under(1)),
      { type: "silent-due", trigger: "new-session", rules, freshId: "d1" },
      "none",
      [],
    ],
    [
      "…and a compaction queued meanwhile goes next, at once",
      at("owed", under(2, { queued: "compaction" })),
      { type: "silent-due", trigger: "new-session", rules, freshId: "d1" },
      "compaction try 1",
      ["try-delivery compaction after 0 ms"],
    ],
    [
      "a first try that failed (no answer): said, then tried again after the first backoff",
      at("empty", under(1)),
      notSent(),
      "new-session try 2",
      ["note delivery-failed", "try-delivery new-session after 200 ms"],
    ],
    [
      "a second: after the second backoff",
      at("empty", under(2)),
      notSent(true),
      "new-session try 3",
      ["note delivery-failed", "try-delivery new-session after 1000 ms"],
    ],
    [
      "the last: said, and left for the session's next event",
      at("empty", under(3)),
      notSent(),
      "none",
      ["note delivery-failed"],
    ],
    [
      "the last, with a compaction queued: the compaction's delivery goes next",
      at("empty", under(3, { queued: "compaction" })),
      notSent(),
      "compaction try 1",
      ["note delivery-failed", "try-delivery compaction after 0 ms"],
    ],
    [
      "past the backoff list, its last wait repeats",
      at("empty", under(3, { retry: { tries: 4, backoffMs: [10, 20] } })),
      notSent(),
      "new-session try 4",
      ["note delivery-failed", "try-delivery new-session after 20 ms"],
    ],
    [
      "a failure of no delivery the session records: said, not tried again",
      at("empty"),
      notSent(),
      "none",
      ["note delivery-failed"],
    ],
    [
      "the delivery's conversation broke off: said, not tried again",
      at("empty", under(1)),
      { type: "delivery-broke", error: "a bug" },
      "none",
      ["note delivery-failed"],
    ],
    ["…with none under way: nothing", at("empty"), { type: "delivery-broke", error: "a bug" }, "none", []],
  ];
  test.each(table)("%s", (_name, state, event, after, effects) => {
    const next = step(state, event);
    expect(silentOf(next.state)).toBe(after);
    expect(next.effects.map(named)).toEqual(effects);
  });

  test("what the failure note says: the try, whether it was the last, and why", () => {
    const [first] = step(at("empty", under(1)), notSent()).effects;
    expect(first).toEqual({
      type: "note",
      note: {
        kind: "delivery-failed",
        trigger: "new-session",
        attempt: 1,
        final: false,
        failure: { kind: "not-sent", error: "no answer in 100 ms" },
      },
    });
    const [broke] = step(at("empty", under(1)), { type: "delivery-broke", error: "a bug" }).effects;
    expect(broke).toMatchObject({ note: { attempt: 1, final: true, failure: { kind: "broke", error: "a bug" } } });
  });
});

describe("a try's outcome", () => {
  test("stored: the delivery is over, the window holds the rules", () => {
    const { state, send } = sentFrom(at("empty", under(1)));
    const stored = step(state, {
      type: "rules-sent",
      delivery: "d1",
      created: 10,
      composed: send.composed,
      compactions: send.compactions,
      trigger: "new-session",
      rules,
    });
    expect(silentOf(stored.state)).toBe("none");
    expect(stored.state.window.stage).toBe("held");
  });

  test("no answer in time: the prompt stays pending, so the next try reads the window before it sends again", () => {
    const { state } = sentFrom(at("empty", under(1)));
    const failed = step(state, notSent());
    expect(failed.state.window.attempts.get("d1")?.status).toBe("pending");
    const retry = step(failed.state, { type: "silent-due", trigger: "new-session", rules, freshId: "d2" });
    expect(retry.effects.map(named)).toEqual(["read-window current for silent"]);
  });

  test("nothing to send: the delivery is over, and a queued compaction goes next", () => {
    const done = step(holding, { type: "silent-due", trigger: "new-session", rules, freshId: "d1" });
    expect(done.effects).toEqual([]);
    const queued = step(
      { ...holding, ...under(1, { queued: "compaction" }) },
      { type: "silent-due", trigger: "new-session", rules, freshId: "d1" },
    );
    expect(queued.effects.map(named)).toEqual(["try-delivery compaction after 0 ms"]);
  });

  test("the last try's history cannot be read with an earlier prompt pending: left for the next event, nothing sent", () => {
    const { state } = sentFrom(at("empty", under(3)));
    const failed = step(state, seen({ kind: "silent", trigger: "new-session", pending: ["d1"] }));
    expect(failed.effects.map(named)).toEqual(["note delivery-failed"]);
    expect(silentOf(failed.state)).toBe("none");
  });
});

describe("conversations", () => {
  test("a refused prompt is forgotten; the next try composes again", () => {
    const sending = step(at("empty"), { type: "silent-due", trigger: "new-session", rules, freshId: "d1" });
    const refused = step(sending.state, {
      type: "rules-not-sent",
      delivery: "d1",
      trigger: "new-session",
      error: "refused",
      refused: true,
    });
    expect(refused.state.window.attempts.size).toBe(0);
    expect(
      work(step(refused.state, { type: "silent-due", trigger: "new-session", rules, freshId: "d2" }).effects),
    ).toEqual(["send-rules new-session [style] as d2"]);
  });

  test("an earlier prompt whose fate is unknown, and a history that cannot be read: this try fails, nothing is sent blind", () => {
    const pending = step(at("empty", delivering), { type: "silent-due", trigger: "new-session", rules, freshId: "d1" });
    const retry = step(pending.state, { type: "silent-due", trigger: "new-session", rules, freshId: "d2" });
    expect(work(retry.effects)).toEqual(["read-window current for silent"]);
    const failed = step(retry.state, seen({ kind: "silent", trigger: "new-session", pending: ["d1"] }));
    expect(failed.effects.map(named)).toEqual(["note delivery-failed", "try-delivery new-session after 200 ms"]);
    expect(failed.effects[0]).toMatchObject({
      note: { attempt: 1, final: false, failure: { kind: "history-unreadable-with-pending" } },
    });
  });
});
