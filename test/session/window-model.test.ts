/**
 * The session's window model (src/session/window.ts, moved by `step`), without a host:
 * a table of transitions (stage before, event, stage after, and what the
 * window then holds), then the sequences that decide a user-visible outcome:
 * rules never sent twice, never lost, a late copy hidden.
 */
import { describe, expect, test } from "vitest";
import type { ComposedMessage } from "../../src/render/compose.js";
import type { Rule } from "../../src/rule/rule.js";
import { NEW_SESSION as NEW_SESSION_STATE } from "../../src/session/session.js";
import { step } from "../../src/session/step.js";
import {
  compactionAlreadyApplied,
  holdsRules,
  isSuperseded,
  mustReadWindow,
  pendingDeliveries,
  rulesOwed,
  userMessageDate,
} from "../../src/session/window-queries.js";
import {
  NEW_WINDOW as NEW_SESSION,
  type Stage,
  type WindowEvent as DeliveryEvent,
  type WindowState as SessionDelivery,
} from "../../src/session/window-state.js";
import { makeRule } from "../support/rules.js";

const style = makeRule({ name: "style", content: "Small functions." });
const security = makeRule({ name: "security", content: "No secrets." });
const current: ReadonlyMap<string, Rule> = new Map([style, security].map((rule) => [rule.name, rule]));
const composed = (...rules: Rule[]): ComposedMessage => ({
  text: rules.map((rule) => rule.content).join("\n"),
  included: rules.map((rule) => ({ rule, reason: { kind: "always" } })),
  onRequest: [],
  leftOut: [],
  removed: [],
  paused: [],
  resumed: [],
  sameText: [],
});
/** The session model's step, as it moves the window (its effects are the next file's). */
const advance = (window: SessionDelivery, event: DeliveryEvent): SessionDelivery =>
  step({ ...NEW_SESSION_STATE, window }, event).state.window;
const at = (stage: Stage, extra: Partial<SessionDelivery> = {}): SessionDelivery => ({
  ...NEW_SESSION,
  stage,
  ...extra,
});
const run = (state: SessionDelivery, ...events: DeliveryEvent[]) => events.reduce(advance, state);
const sent = (delivery: string, ...rules: Rule[]): DeliveryEvent => ({
  type: "prompt-sent",
  delivery,
  composed: composed(...rules),
});
const stored = (delivery: string, created: number, compactions = 0): DeliveryEvent => ({
  type: "prompt-stored",
  delivery,
  created,
  composed: composed(style),
  compactions,
  current,
});
const held = (state: SessionDelivery) => [...state.delivered.keys()];
const COMPACTED: DeliveryEvent = { type: "compacted", windowStart: "msg_c1", announced: true, at: 100 };

describe("transitions", () => {
  const table: Array<[string, Stage, DeliveryEvent, Stage, string[]]> = [
    ["a new session is empty", "unread", { type: "created", ignored: false, hasHistory: false }, "empty", []],
    [
      "a fork stays unread: its history is copied in later",
      "unread",
      { type: "created", ignored: false, hasHistory: true },
      "unread",
      [],
    ],
    [
      "a subagent session, subagents off, is ignored",
      "unread",
      { type: "created", ignored: true, hasHistory: false },
      "ignored",
      [],
    ],
    [
      "a late creation event does not empty a window that holds rules",
      "held",
      { type: "created", ignored: false, hasHistory: false },
      "held",
      [],
    ],
    ["nothing to send: the window holds what it needs", "empty", { type: "nothing-to-send" }, "held", []],
    ["an ignored session stays ignored", "ignored", { type: "nothing-to-send" }, "ignored", []],
    ["a stored prompt: the window holds its rules", "empty", stored("d1", 10), "held", ["style"]],
    [
      "a user message carries the rules",
      "empty",
      { type: "user-message", composed: composed(style), current },
      "held",
      ["style"],
    ],
    [
      "a user message with nothing to add still settles the window",
      "unread",
      { type: "user-message", composed: undefined, current },
      "held",
      [],
    ],
    [
      "the history shows rules: settled",
      "unread",
      { type: "window-read", found: [{ rules: ["style"] }], settles: true, current },
      "held",
      ["style"],
    ],
    [
      "the history shows none: still to deliver",
      "unread",
      { type: "window-read", found: [], settles: true, current },
      "unread",
      [],
    ],
    [
      "rules found after a compaction are recorded, the delivery goes on",
      "empty",
      { type: "window-read", found: [{ rules: ["style"] }], settles: false, current },
      "empty",
      ["style"],
    ],
    ["a compaction empties the window", "held", COMPACTED, "empty", []],
    ["a compaction leaves an ignored session ignored", "ignored", COMPACTED, "ignored", []],
    [
      "the model read past where a silent prompt would go: the rules are owed",
      "empty",
      { type: "overtaken" },
      "owed",
      [],
    ],
    ["a window that holds its rules is never owed", "held", { type: "overtaken" }, "held", []],
    [
      "a tool result pays what is owed",
      "owed",
      { type: "tool-result", composed: composed(style), current },
      "held",
      ["style"],
    ],
    [
      "a user message pays what is owed",
      "owed",
      { type: "user-message", composed: composed(style), current },
      "held",
      ["style"],
    ],
    [
      "a tool result adds its rules",
      "held",
      { type: "tool-result", composed: composed(security), current },
      "held",
      ["security"],
    ],
    ["the rule tool adds the rule it read", "held", { type: "rule-read", rule: security }, "held", ["security"]],
  ];
  test.each(table)("%s", (_name, stage, event, after, holding) => {
    const next = advance(at(stage), event);
    expect(next.stage).toBe(after);
    expect(held(next)).toEqual(holding);
  });

  test("a compaction counts a new window and forgets the on-request list", () => {
    const next = advance(at("held", { listedOnRequest: true, delivered: new Map([["style", style]]) }), COMPACTED);
    expect(next).toMatchObject({ compactions: 1, listedOnRequest: false });
  });

  test("a refused prompt is forgotten; one that timed out stays pending", () => {
    const afterSend = run(at("empty"), sent("d1", style));
    expect(pendingDeliveries(afterSend)).toEqual(new Set(["d1"]));
    expect(pendingDeliveries(advance(afterSend, { type: "prompt-refused", delivery: "d1" }))).toEqual(new Set());
  });

  test("at most 16 attempts are remembered, the oldest forgotten first", () => {
    const events = Array.from({ length: 20 }, (_, i) => sent(`d${i}`, style));
    const state = run(at("empty"), ...events);
    expect(state.attempts.size).toBe(16);
    expect(state.attempts.has("d0")).toBe(false);
    expect(state.attempts.has("d19")).toBe(true);
  });
});

describe("sequences", () => {
  test("a prompt that timed out: the window must be read before a user message adds rules", () => {
    const state = run(at("empty"), sent("d1", style));
    expect(mustReadWindow(state)).toBe(true);
    expect(mustReadWindow(at("empty"))).toBe(false);
    expect(mustReadWindow(at("unread"))).toBe(true);
    expect(mustReadWindow(run(state, stored("d1", 5)))).toBe(false);
  });

  test("a user message carries the rules while a prompt is on its way: the prompt, landing late, is hidden", () => {
    const state = run(at("empty"), sent("d1", style), { type: "user-message", composed: composed(style), current });
    expect(isSuperseded(state, "d1")).toBe(true);
    // Its answer arrives: nothing changes, the window holds the rules once.
    const after = advance(state, stored("d1", 20));
    expect(after.rulesCreated).toBeUndefined();
    expect(held(after)).toEqual(["style"]);
  });

  test("a retry finds the first attempt stored: the first is the delivery, the retry's copy would be superseded", () => {
    const state = run(at("empty"), sent("d1", style), sent("d2", style), stored("d1", 7));
    expect(state.stage).toBe("held");
    expect(state.rulesCreated).toBe(7);
    expect(isSuperseded(state, "d2")).toBe(true);
  });

  test("a prompt composed before a compaction does not count for the new window", () => {
    const state = run(at("empty"), sent("d1", style), COMPACTED, stored("d1", 9));
    expect(state.stage).toBe("empty");
    expect(held(state)).toEqual([]);
  });

  test("a prompt composed before a compaction, seen stored and dated after the plugin knew of the new window: it holds the rules there", () => {
    // The window started at 100 (COMPACTED.at); the host dates the prompt 150: it sorts after the compaction's message.
    const state = run(at("empty"), sent("d1", style), COMPACTED, {
      type: "prompt-seen",
      delivery: "d1",
      created: 150,
      current,
    });
    expect(state).toMatchObject({ stage: "held", rulesCreated: 150 });
    expect(held(state)).toEqual(["style"]);
    // Its answer comes after: the window holds the rules once, as the same message.
    expect(run(state, stored("d1", 150, 1))).toMatchObject({ stage: "held", rulesCreated: 150 });
  });

  test("a prompt composed before a compaction, dated before the plugin knew of it: it may be in either window, nothing counted", () => {
    const state = run(at("empty"), sent("d1", style), COMPACTED, {
      type: "prompt-seen",
      delivery: "d1",
      created: 99,
      current,
    });
    expect(state.stage).toBe("empty");
    expect(held(state)).toEqual([]);
  });

  test("the plugin sees its own prompt being stored: held at once, as dated by the host", () => {
    const seen = run(at("empty"), sent("d1", style), { type: "prompt-seen", delivery: "d1", created: 500, current });
    expect(seen).toMatchObject({ stage: "held", rulesCreated: 500 });
  });

  test("a compaction re-delivery overtaken by the model: the prompt on its way is hidden when it lands, and the rules are owed to the next message", () => {
    const state = run(at("held"), COMPACTED, sent("d1", style), { type: "overtaken" });
    expect(rulesOwed(state)).toBe(true);
    expect(isSuperseded(state, "d1")).toBe(true);
    // It lands after all: still owed, nothing counted as held.
    const landed = advance(state, { type: "prompt-seen", delivery: "d1", created: 9, current });
    expect(landed.stage).toBe("owed");
    expect(held(landed)).toEqual([]);
  });

  test("a compaction under way: known before its event; the event for a window already started is recognised by its id", () => {
    const started = advance(at("held"), { type: "compaction-started" });
    expect(started).toMatchObject({ stage: "held", compacting: true });
    // A user's message found the compaction in the history and started its window.
    const joined = advance(started, { type: "compacted", windowStart: "msg_c1", announced: false, at: 100 });
    expect(joined).toMatchObject({ stage: "empty", compacting: false, windowStart: "msg_c1", unannounced: 1 });
    expect(compactionAlreadyApplied(joined, "msg_c1")).toBe(true);
    expect(compactionAlreadyApplied(joined, "msg_c2")).toBe(false);
    // The history unreadable: the event is the one this window waits for…
    expect(compactionAlreadyApplied(joined, undefined)).toBe(true);
    // …and once it came, a further event is for a compaction of its own.
    expect(compactionAlreadyApplied(advance(joined, { type: "compaction-announced" }), undefined)).toBe(false);
    // Two windows started on hooks, their events both late: each event is one of them.
    const twice = run(
      joined,
      { type: "compacted", windowStart: "msg_c2", announced: false, at: 200 },
      { type: "compaction-announced" },
    );
    expect(compactionAlreadyApplied(twice, undefined)).toBe(true);
    expect(compactionAlreadyApplied(advance(at("held"), COMPACTED), undefined)).toBe(false);
  });

  test("a compaction that failed moves no window", () => {
    const state = run(
      at("held", { delivered: new Map([["style", style]]) }),
      { type: "compaction-started" },
      { type: "compaction-abandoned" },
    );
    expect(state).toMatchObject({ stage: "held", compacting: false, compactions: 0 });
    expect(held(state)).toEqual(["style"]);
  });

  test("a user message sorts after the window's rules message", () => {
    const state = run(at("empty"), sent("d1", style), stored("d1", 50));
    expect(userMessageDate(state, 50)).toBe(51);
    expect(userMessageDate(state, 60)).toBeUndefined();
    expect(userMessageDate(at("empty", { rulesCreated: 50 }), 40)).toBeUndefined();
  });

  test("a reload records unchanged rules as their new objects, and keeps an edited rule's old version so it goes again", () => {
    const state = run(at("held"), { type: "user-message", composed: composed(style, security), current });
    const restyled = makeRule({ name: "style", content: "Tiny functions." });
    const sameSecurity = { ...security };
    const next = advance(state, {
      type: "reloaded",
      current: new Map([
        ["style", restyled],
        ["security", sameSecurity],
      ]),
    });
    expect(next.delivered.get("style")).toBe(style);
    expect(next.delivered.get("security")).toBe(sameSecurity);
  });

  test("a history entry of the plugin's own timed-out attempt records what that attempt carried", () => {
    const state = run(at("unread"), sent("d1", security), {
      type: "window-read",
      found: [{ rules: ["style"], delivery: "d1" }],
      settles: true,
      current,
    });
    expect(held(state)).toEqual(["security"]);
    expect(state.listedOnRequest).toBe(true);
    expect(holdsRules(state)).toBe(true);
    expect(pendingDeliveries(state)).toEqual(new Set());
  });
});
