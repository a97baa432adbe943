import { describe, expect, it } from "vitest";
import { RECORD_VERSION, type RecordEvent, type RecordKind } from "../../src/record/event.js";
import { recordStats, modelMatches, type RecordStats } from "../../src/record/stats.js";
import { thirdOf } from "../../src/record/stats-compliance.js";
import type { KnownRule } from "../../src/record/stats-rules.js";

const T0 = Date.UTC(2026, 10, 1);
const MINUTE = 60_000;

const ev = (kind: RecordKind, fields: Partial<RecordEvent> = {}): RecordEvent => ({
  v: RECORD_VERSION,
  at: T0,
  kind,
  project: "/p",
  session: "s1",
  agent: "build",
  model: "anthropic/claude-x",
  ...(kind === "tool-calls" ? {} : { rule: "r" }),
  ...fields,
});

/** The count of `session`'s tool calls noted after each of its `calls` calls. */
const toolCalls = (session: string, calls: number, fields: Partial<RecordEvent> = {}): RecordEvent[] =>
  Array.from({ length: calls }, (_, i) => ev("tool-calls", { session, call: i + 1, ...fields }));

const row = (stats: RecordStats, rule: string) => stats.rules.find((r) => r.rule === rule);

describe("recordStats: a rule's row", () => {
  const events: RecordEvent[] = [
    ev("delivered", { session: "s1", tokens: 100, trigger: "start", scope: "project", source: "a.md", at: T0 }),
    ev("delivered", { session: "s1", tokens: 100, trigger: "compaction", at: T0 + MINUTE }),
    ev("delivered", {
      session: "s2",
      tokens: 100,
      trigger: "file",
      scope: "global",
      source: "~/b.md",
      at: T0 + 2 * MINUTE,
    }),
    ev("requested", { session: "s3", at: T0 + 3 * MINUTE }),
    ev("listed", { session: "s4" }),
    ev("left-out", { session: "s4" }),
    ev("refused", { session: "s1", call: 1, tool: "edit", file: "x.ts" }),
    ev("refused", { session: "s1", call: 2, tool: "edit", file: "x.ts" }),
    ev("corrected", { session: "s1", tool: "edit", file: "x.ts" }),
    ev("gave-up", { session: "s1", tool: "edit" }),
    ev("warned", { session: "s2", call: 1, tool: "bash" }),
    ev("verify", { session: undefined, agent: undefined, model: undefined, file: "y.ts", at: T0 + 9 * MINUTE }),
  ];

  it("gives every figure", () => {
    const stats = recordStats(events, {});
    expect(stats.rules).toEqual([
      {
        rule: "r",
        scope: "global",
        source: "~/b.md",
        sessions: 3,
        delivered: 3,
        tokens: 300,
        tokensPerSession: 100,
        refused: 2,
        corrected: 1,
        correctedPercent: 50,
        gaveUp: 1,
        warned: 1,
        requested: 1,
        listed: 1,
        leftOut: 1,
        verify: 1,
        lastSeen: new Date(T0 + 9 * MINUTE).toISOString(),
      },
    ]);
    expect(stats).toMatchObject({ since: null, events: events.length, sessions: 4, toolCalls: 2 });
  });

  it("rounds tokens a session and the share corrected", () => {
    const stats = recordStats(
      [
        ev("delivered", { session: "a", tokens: 10 }),
        ev("delivered", { session: "b", tokens: 10 }),
        ev("delivered", { session: "c", tokens: 5 }),
        ev("refused"),
        ev("refused"),
        ev("refused"),
        ev("corrected"),
      ],
      {},
    );
    expect(row(stats, "r")).toMatchObject({ tokens: 25, tokensPerSession: 8, correctedPercent: 33 });
  });

  it("describes a known rule as the project has it now, over what the record says", () => {
    const known: KnownRule[] = [
      { name: "r", scope: "project", source: ".opencode/rules/r.md", pack: "@acme/rules@2.1.0" },
    ];
    expect(row(recordStats(events, {}, known), "r")).toMatchObject({
      scope: "project",
      source: ".opencode/rules/r.md",
      pack: "@acme/rules@2.1.0",
    });
  });

  it("leaves scope, source and pack out of a row when nothing says them", () => {
    const only = row(recordStats([ev("delivered", { tokens: 1 })], {}), "r")!;
    expect(Object.keys(only)).toEqual([
      "rule",
      "sessions",
      "delivered",
      "tokens",
      "tokensPerSession",
      "refused",
      "corrected",
      "correctedPercent",
      "gaveUp",
      "warned",
      "requested",
      "listed",
      "leftOut",
      "verify",
      "lastSeen",
    ]);
    expect(only.correctedPercent).toBeNull();
  });

  it("gives a known rule without events a row of zeros", () => {
    const stats = recordStats(events, {}, [{ name: "quiet", scope: "project", source: "q.md" }]);
    expect(row(stats, "quiet")).toMatchObject({
      sessions: 0,
      delivered: 0,
      tokens: 0,
      tokensPerSession: 0,
      correctedPercent: null,
      lastSeen: null,
    });
  });
});

describe("recordStats: the sections", () => {
  it("sorts rows by tokens then name, and names the five costliest with tokens", () => {
    // f 0, e 10, d 20, c 30, b 40, a 40 (a tie, by name), g 0
    const events = ["f", "e", "d", "c", "b", "a", "g"].map((rule, i) =>
      ev("delivered", { rule, tokens: rule === "g" ? 0 : 10 * Math.min(i, 4) }),
    );
    const stats = recordStats(events, {});
    expect(stats.rules.map((r) => r.rule)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(stats.costliest).toEqual([
      { rule: "a", tokens: 40, tokensPerSession: 40 },
      { rule: "b", tokens: 40, tokensPerSession: 40 },
      { rule: "c", tokens: 30, tokensPerSession: 30 },
      { rule: "d", tokens: 20, tokensPerSession: 20 },
      { rule: "e", tokens: 10, tokensPerSession: 10 },
    ]);
  });

  it("names the known rules not delivered in the period, with the period's sessions", () => {
    const known: KnownRule[] = ["used", "listed-only", "unseen"].map((name) => ({
      name,
      scope: "project",
      source: name,
    }));
    const events = [
      ev("delivered", { rule: "used", session: "a" }),
      ev("listed", { rule: "listed-only", session: "b" }),
      ev("delivered", { rule: "gone", session: "c" }),
    ];
    expect(recordStats(events, {}, known).neverApplied).toEqual({ rules: ["listed-only", "unseen"], sessions: 3 });
  });

  it("without known rules, names the rules the record mentions (any time) not delivered in the period", () => {
    const events = [
      ev("delivered", { rule: "old", at: T0 - 60 * MINUTE }),
      ev("delivered", { rule: "used", at: T0 }),
      ev("left-out", { rule: "squeezed", at: T0 }),
    ];
    const stats = recordStats(events, { since: T0 });
    expect(stats.neverApplied).toEqual({ rules: ["old", "squeezed"], sessions: 1 });
    expect(row(stats, "old")).toMatchObject({ delivered: 0, lastSeen: null });
  });

  it("ranks broken rules by model, refusals and warnings together, top ten", () => {
    const events = [
      ev("refused", { rule: "a", model: "m/1" }),
      ev("warned", { rule: "a", model: "m/1" }),
      ev("refused", { rule: "a", model: "m/2" }),
      ev("refused", { rule: "b", model: undefined }),
      ev("warned", { rule: "b", model: undefined }),
      ev("warned", { rule: "b", model: undefined }),
      ...Array.from({ length: 12 }, (_, i) => ev("warned", { rule: `w${String(i).padStart(2, "0")}`, model: "m/3" })),
    ];
    const broken = recordStats(events, {}).brokenByModel;
    expect(broken.slice(0, 3)).toEqual([
      { model: "unknown", rule: "b", refused: 1, warned: 2 },
      { model: "m/1", rule: "a", refused: 1, warned: 1 },
      { model: "m/2", rule: "a", refused: 1, warned: 0 },
    ]);
    expect(broken).toHaveLength(10);
    expect(broken[3]).toEqual({ model: "m/3", rule: "w00", refused: 0, warned: 1 });
  });
});

describe("recordStats: compliance over a session", () => {
  it("puts call k of N in third min(2, floor(3(k-1)/N))", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((k) => thirdOf(k, 9))).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2]);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((k) => thirdOf(k, 10))).toEqual([0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
    expect([thirdOf(1, 1), thirdOf(1, 2), thirdOf(2, 2)]).toEqual([0, 0, 1]);
    expect([thirdOf(0, 5), thirdOf(12, 5)]).toEqual([0, 2]);
  });

  it("counts tool calls and refusals per third, per 100 calls to one decimal", () => {
    const events = [
      ...toolCalls("a", 9),
      ...toolCalls("b", 10),
      ev("refused", { session: "a", call: 1 }),
      ev("refused", { session: "a", call: 9 }),
      ev("refused", { session: "b", call: 4 }),
      ev("refused", { session: "b", call: 5 }),
      ev("refused", { session: "b", call: 10 }),
    ];
    expect(recordStats(events, {}).compliance.thirds).toEqual([
      { toolCalls: 7, refusals: 2, per100: 28.6 },
      { toolCalls: 6, refusals: 1, per100: 16.7 },
      { toolCalls: 6, refusals: 2, per100: 33.3 },
    ]);
  });

  it("leaves out refusals without a call, and warnings; a refusal's call counts as a call made", () => {
    const events = [
      ...toolCalls("a", 3),
      ev("refused", { session: "b", call: 1 }),
      ev("refused", { session: "a" }),
      ev("warned", { session: "a", call: 1 }),
    ];
    const stats = recordStats(events, {});
    expect(stats.compliance.thirds.map((t) => t.refusals)).toEqual([1, 0, 0]);
    expect(stats.toolCalls).toBe(4);
  });

  it("takes a session's length from its highest call, so a period that cuts it keeps the calls in place", () => {
    const events = toolCalls("a", 9).map((e, i) => ({ ...e, at: T0 + i * MINUTE }));
    const stats = recordStats([...events, ev("refused", { session: "a", call: 9, at: T0 + 8 * MINUTE })], {
      since: T0 + 6 * MINUTE,
    });
    expect(stats.compliance.thirds).toEqual([
      { toolCalls: 0, refusals: 0, per100: null },
      { toolCalls: 0, refusals: 0, per100: null },
      { toolCalls: 3, refusals: 1, per100: 33.3 },
    ]);
  });

  it("takes a session's length from its refusals when no count was noted; a count line without a count is left out", () => {
    const events = [...toolCalls("a", 3, { call: undefined }), ev("refused", { session: "a", call: 3 })];
    expect(recordStats(events, {}).compliance.thirds.map((t) => [t.toolCalls, t.refusals])).toEqual([
      [1, 0],
      [1, 0],
      [1, 1],
    ]);
  });
});

describe("recordStats: filters", () => {
  const events = [
    ev("delivered", { rule: "a", at: T0 - MINUTE, tokens: 5, session: "old" }),
    ev("delivered", { rule: "a", at: T0, tokens: 7, model: "openai/gpt-5", agent: "plan", session: "s1" }),
    ev("delivered", { rule: "b", at: T0 + MINUTE, tokens: 11, model: "anthropic/claude-x", session: "s2" }),
    ev("verify", { rule: "b", session: undefined, model: undefined, agent: undefined }),
    ...toolCalls("s1", 2, { model: "openai/gpt-5", agent: "plan" }),
  ];

  it("keeps the events at or after since, and says since as an ISO time", () => {
    const stats = recordStats(events, { since: T0 });
    expect(stats).toMatchObject({ since: new Date(T0).toISOString(), events: 5, sessions: 2, toolCalls: 2 });
    expect(row(stats, "a")).toMatchObject({ delivered: 1, tokens: 7 });
  });

  it("keeps one rule's events and every tool call (the measure)", () => {
    const stats = recordStats(events, { rule: "b" });
    expect(stats.rules.map((r) => r.rule)).toEqual(["b"]);
    expect(stats).toMatchObject({ events: 4, toolCalls: 2 });
  });

  it("keeps a known rule's row only when it is the rule asked for", () => {
    const known: KnownRule[] = [{ name: "z", scope: "project", source: "z.md" }];
    expect(recordStats(events, { rule: "b" }, known).rules.map((r) => r.rule)).toEqual(["b"]);
    expect(recordStats(events, { rule: "z" }, known).neverApplied.rules).toEqual(["z"]);
  });

  it("matches a model by provider/model or by the model alone, never by the provider", () => {
    expect(recordStats(events, { model: "openai/gpt-5" })).toMatchObject({ events: 3, toolCalls: 2 });
    expect(recordStats(events, { model: "gpt-5" })).toMatchObject({ events: 3, toolCalls: 2 });
    expect(recordStats(events, { model: "openai" }).events).toBe(0);
    expect(modelMatches("openrouter/anthropic/claude", "anthropic/claude")).toBe(true);
    expect(modelMatches("openrouter/anthropic/claude", "claude")).toBe(false);
  });

  it("keeps one agent's events; an event without an agent (verify) is not one", () => {
    expect(recordStats(events, { agent: "plan" })).toMatchObject({ events: 3, sessions: 1 });
    expect(recordStats(events, { agent: "build" })).toMatchObject({ events: 2 });
  });

  it("gives an empty period zeros and empty sections", () => {
    const stats = recordStats(events, { since: T0 + 60 * MINUTE });
    expect(stats).toMatchObject({ events: 0, sessions: 0, toolCalls: 0, costliest: [], brokenByModel: [] });
    expect(stats.compliance.thirds.every((t) => t.per100 === null)).toBe(true);
  });
});
