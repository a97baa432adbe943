/**
 * What each note of the session model records: the event model of the record,
 * pure. Above all, what brought a delivered rule, as a person reading
 * `stats` would name it.
 */
import { describe, expect, test } from "vitest";
import type { ComposedMessage } from "../../src/render/compose.js";
import { ruleTokens } from "../../src/render/tokens.js";
import { recordedFor, verifyRecorded } from "../../src/record/from-note.js";
import type { Rule } from "../../src/rule/rule.js";
import type { ActivationReason } from "../../src/select/reasons.js";
import { NEW_SESSION, type Note, type RuleSet } from "../../src/session/session.js";
import { makeRule } from "../support/rules.js";

const always = makeRule({ name: "house" });
const forBuild = makeRule({ name: "build-only", agents: ["build"] });
const onRelease = makeRule({ name: "release", branches: ["release/*"] });
const byFile = makeRule({ name: "ts", globs: ["src/**/*.ts"] });
const packed = makeRule({ name: "team", pack: { spec: "@acme/rules", label: "@acme/rules@2.1.0" } });
const rules: RuleSet = {
  list: [always, forBuild, onRelease, byFile, packed],
  byName: new Map([always, forBuild, onRelease, byFile, packed].map((rule) => [rule.name, rule])),
  names: new Set(["house", "build-only", "release", "ts", "team"]),
  warnings: 0,
};
const state = { ...NEW_SESSION, agent: "build", model: { providerID: "acme", modelID: "coder-1" } };
const context = { project: "/work/app", sessionID: "s1", state, rules: () => rules, now: 1_000 };
const fileMet: ActivationReason = {
  kind: "conditions",
  met: [{ kind: "file", file: "src/a.ts", glob: "src/**/*.ts" }] as never,
};

function delivered(
  included: Array<[Rule, ActivationReason]>,
  extra: {
    opens?: "new-session" | "compaction";
    fresh?: string[];
    onRequest?: Rule[];
    leftOut?: Rule[];
    roomMade?: string[];
  } = {},
): Note {
  const composed = {
    text: "",
    included: included.map(([rule, reason]) => ({ rule, reason })),
    onRequest: extra.onRequest ?? [],
    leftOut: extra.leftOut ?? [],
    removed: [],
    paused: [],
    resumed: [],
  } as unknown as ComposedMessage;
  return {
    kind: "delivered",
    rules: included.map(([rule]) => rule.name),
    how: "message",
    composed,
    ...(extra.opens ? { opens: extra.opens } : {}),
    fresh: extra.fresh ?? [],
    leftOut: (extra.leftOut ?? []).map((rule) => rule.name),
    roomMade: extra.roomMade ?? [],
  };
}
const triggers = (note: Note) => recordedFor(note, context).map(({ rule, trigger }) => [rule, trigger]);

describe("what brought a delivered rule", () => {
  test("the window's first rules: the session's start or a compaction, except rules the same message activated", () => {
    const note = delivered(
      [
        [always, { kind: "always" }],
        [byFile, fileMet],
      ],
      { opens: "compaction", fresh: ["ts"] },
    );
    expect(triggers(note)).toEqual([
      ["house", "compaction"],
      ["ts", "file"],
    ]);
    expect(triggers(delivered([[always, { kind: "always" }]], { opens: "new-session" }))).toEqual([
      ["house", "session-start"],
    ]);
  });

  test("mid-session: the condition that held, the scope that came to hold, or the file that changed", () => {
    const note = delivered([
      [byFile, fileMet],
      [forBuild, { kind: "always" }],
      [onRelease, { kind: "always" }],
      [always, { kind: "always" }],
      [packed, { kind: "mention", rule: "team" }],
    ]);
    expect(triggers(note)).toEqual([
      ["ts", "file"],
      ["build-only", "agent"],
      ["release", "branch"],
      ["house", "changed"],
      ["team", "mention"],
    ]);
  });

  test("an always rule the budget left out of an earlier message, given once there was room", () => {
    expect(triggers(delivered([[always, { kind: "always" }]], { roomMade: ["house"] }))).toEqual([["house", "room"]]);
  });

  test("each line: the session, agent and model, the rule's scope, file, pack and size", () => {
    const [line] = recordedFor(delivered([[packed, { kind: "always" }]], { opens: "new-session" }), context);
    expect(line).toEqual({
      v: 1,
      at: 1_000,
      kind: "delivered",
      project: "/work/app",
      session: "s1",
      agent: "build",
      model: "acme/coder-1",
      rule: "team",
      scope: "project",
      source: ".opencode/rules/team.md",
      pack: "@acme/rules@2.1.0",
      tokens: ruleTokens(packed),
      trigger: "session-start",
    });
  });

  test("on-request rules listed and rules left out by the budget have lines of their own", () => {
    const note = delivered([[always, { kind: "always" }]], { onRequest: [forBuild], leftOut: [byFile] });
    expect(recordedFor(note, context).map(({ kind, rule }) => [kind, rule])).toEqual([
      ["delivered", "house"],
      ["listed", "build-only"],
      ["left-out", "ts"],
    ]);
  });
});

describe("enforcement, requests, calls and verify", () => {
  test("a refusal: the text it gave as a delivery, and one line per rule broken with the call's file, line and number", () => {
    const note: Note = {
      kind: "enforced",
      mode: "block",
      tool: "write",
      call: 4,
      given: ["ts"],
      broken: [{ rule: "ts", pattern: "console.log(", file: "src/a.ts", lineNumber: 7 }],
    };
    expect(
      recordedFor(note, context).map(({ kind, trigger, file, line, call, pattern }) => ({
        kind,
        trigger,
        file,
        line,
        call,
        pattern,
      })),
    ).toEqual([
      { kind: "delivered", trigger: "refusal", file: undefined, line: undefined, call: undefined, pattern: undefined },
      { kind: "refused", trigger: undefined, file: "src/a.ts", line: 7, call: 4, pattern: "console.log(" },
    ]);
    expect(recordedFor({ ...note, mode: "warn", given: [] }, context).map(({ kind }) => kind)).toEqual(["warned"]);
  });

  test("a rule no longer loaded is named alone; a rule read with the tool is requested and delivered", () => {
    expect(recordedFor({ kind: "corrected", tool: "write", file: "a.ts", rules: ["gone"] }, context)).toEqual([
      expect.objectContaining({ kind: "corrected", rule: "gone", tool: "write", file: "a.ts" }),
    ]);
    expect(
      recordedFor({ kind: "rule-requested", rule: "house" }, context).map(({ kind, trigger }) => [kind, trigger]),
    ).toEqual([
      ["requested", undefined],
      ["delivered", "rule-tool"],
    ]);
  });

  test("the session's count of tool calls is one line; a note about the log alone records nothing", () => {
    expect(recordedFor({ kind: "tool-calls", calls: 42 }, context)).toEqual([
      {
        v: 1,
        at: 1_000,
        kind: "tool-calls",
        project: "/work/app",
        session: "s1",
        agent: "build",
        model: "acme/coder-1",
        call: 42,
      },
    ]);
    expect(recordedFor({ kind: "went-on-before-rules" }, context)).toEqual([]);
  });

  test("verify's findings: no session, the rule, its pattern, file and line", () => {
    const findings = [{ rule: byFile, pattern: { written: "TODO" }, file: "src/b.ts", lineNumber: 2 }];
    expect(verifyRecorded(findings, "/work/app", 5)).toEqual([
      {
        v: 1,
        at: 5,
        kind: "verify",
        project: "/work/app",
        rule: "ts",
        scope: "project",
        source: ".opencode/rules/ts.md",
        tokens: ruleTokens(byFile),
        pattern: "TODO",
        file: "src/b.ts",
        line: 2,
      },
    ]);
  });
});
