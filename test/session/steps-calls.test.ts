/**
 * A tool call's steps (src/session/step-call.ts, src/session/call-check.ts):
 * before it runs, what it names counts and what it would add is checked
 * against the rules that forbid, rule files left out; after it ran, the call
 * kept from before it ran (read again only when none was kept), its listing
 * and the text it brought in. For each event: what the session keeps, and the
 * effects asked for.
 */
import { describe, expect, test } from "vitest";
import type { PlacedCall, ProposedChange, ToolCall } from "../../src/enforce/proposed.js";
import type { Violation } from "../../src/enforce/violations.js";
import { readForbidPattern } from "../../src/pattern/forbid-pattern.js";
import type { Rule } from "../../src/rule/rule.js";
import type { Effect } from "../../src/session/effects.js";
import type { CallUnderCheck, SessionEvent } from "../../src/session/events.js";
import { MAX_KEPT_CALLS, placeCall } from "../../src/session/placed-call.js";
import type { RuleSet, SessionState } from "../../src/session/session.js";
import { step } from "../../src/session/step.js";
import { makeRule } from "../support/rules.js";
import { at, finished, holding, named, place, ruleSet, rules, style, typescript, userTurn } from "./step-fixtures.js";

const pattern = (written: string) => {
  const read = readForbidPattern(written);
  if (!("pattern" in read)) throw new Error(`the test's pattern ${written} does not read`);
  return read.pattern;
};
const noConsole = makeRule({
  name: "no-console",
  alwaysApply: false,
  enforce: { mode: "block", forbid: [pattern("console.log(")], forbidCommands: [] },
});
const noForce = makeRule({
  name: "no-force",
  alwaysApply: false,
  enforce: { mode: "warn", forbid: [], forbidCommands: [pattern("--force")] },
});
const forbidding = (extra: Partial<RuleSet> = {}): RuleSet => ({
  ...ruleSet(style, typescript, noConsole, noForce),
  ...extra,
});
const write = (path: string, content = "x\n"): ProposedChange => ({ kind: "write", path, content });
const edit = (path: string): ProposedChange => ({
  kind: "edit",
  path,
  replacements: [{ oldText: "a", newText: "console.log(a)" }],
  added: [{ text: "console.log(a)" }],
});
const toolCall = (changes: ProposedChange[], extra: Partial<ToolCall> = {}): ToolCall => ({
  tool: "write",
  callID: "c1",
  files: changes.flatMap((change) => (change.kind === "command" ? [] : [change.path])),
  changes,
  ...extra,
});
const proposed = (call: ToolCall, set = forbidding()): SessionEvent => ({
  type: "call-proposed",
  call,
  place,
  rules: set,
});
/** The check of `call` under way, the rule files found as given. */
const underCheck = (call: ToolCall, ruleFiles: Array<string | undefined>): CallUnderCheck => ({
  call: placeCall(call, place),
  number: 1,
  forbidding: { rules: forbidding().list },
  option: "block",
  deadline: 1_000,
  ruleFiles,
});
const effectOf = <T extends Effect["type"]>(effects: Effect[], type: T) =>
  effects.find((effect): effect is Extract<Effect, { type: T }> => effect.type === type);

describe("before a call runs: what the session keeps, and the effects asked for", () => {
  const table: Array<[string, SessionState, SessionEvent, string[], string[], string[]]> = [
    [
      "a read in a session that gets rules: its files count, the call is kept for its result",
      holding,
      proposed(toolCall([], { tool: "read", files: ["/p/src/a.ts"] })),
      ["src/a.ts"],
      ["c1"],
      ["answer"],
    ],
    [
      "a write where some rule forbids: checked, starting with the rule files it writes",
      holding,
      proposed(toolCall([write("src/b.ts")])),
      ["src/b.ts"],
      ["c1"],
      ["find-rule-files write"],
    ],
    [
      "a write where no rule forbids: let run at once",
      holding,
      proposed(toolCall([write("src/b.ts")]), rules),
      ["src/b.ts"],
      ["c1"],
      ["answer"],
    ],
    [
      "the user's `enforce: off`: only managed rules are checked, and none is here",
      holding,
      proposed(toolCall([write("src/b.ts")]), forbidding({ enforce: "off" })),
      ["src/b.ts"],
      ["c1"],
      ["answer"],
    ],
    [
      "a subagent's session left alone: nothing counts or is kept, but the call is checked like its parent's",
      at("ignored"),
      proposed(toolCall([write("src/b.ts")])),
      [],
      [],
      ["find-rule-files write"],
    ],
    [
      "a call without the host's id: checked, but not kept (its result could not be told from another's)",
      holding,
      proposed(toolCall([write("src/b.ts")], { callID: undefined })),
      ["src/b.ts"],
      [],
      ["find-rule-files write"],
    ],
  ];
  test.each(table)("%s", (_name, state, event, files, kept, effects) => {
    const next = step(state, event);
    expect([...next.state.activation.files]).toEqual(files);
    expect([...(next.state.calls?.keys() ?? [])]).toEqual(kept);
    expect(next.effects.map(named)).toEqual(effects);
  });

  test("calls kept for their result are bounded: one whose result never comes (it failed) is let go, oldest first", () => {
    let state = holding;
    for (let i = 0; i <= MAX_KEPT_CALLS; i++)
      state = step(state, proposed(toolCall([], { tool: "read", callID: `c${i}` }), rules)).state;
    expect(state.calls?.size).toBe(MAX_KEPT_CALLS);
    expect(state.calls?.has("c0")).toBe(false);
    expect(state.calls?.has(`c${MAX_KEPT_CALLS}`)).toBe(true);
  });

  test("what a check starts with: the call placed once, the rules that hold, and what breaking one means", () => {
    const asked = (set: RuleSet) =>
      effectOf(step(holding, proposed(toolCall([edit("file:///p/src/a.ts")]), set)).effects, "find-rule-files");
    const check = asked(forbidding())?.check;
    expect(check?.call.changes).toEqual([
      expect.objectContaining({ written: "file:///p/src/a.ts", file: { path: "src/a.ts", absolute: "/p/src/a.ts" } }),
    ]);
    expect(check?.forbidding.rules.map(({ name }) => name)).toEqual(["style", "typescript", "no-console", "no-force"]);
    expect(check?.option).toBe("block");
    expect(asked(forbidding({ enforce: "warn" }))?.check.option).toBe("warn");
    const managed = { ...noConsole, trust: "managed" as const };
    expect(asked(forbidding({ enforce: "off", list: [managed] }))?.check.forbidding.rules).toEqual([managed]);
  });
});

describe("the check: which files are read, which changes are checked", () => {
  test("the files it changes are read, then the rule files it edits; a write of a rule file needs no read", () => {
    const call = toolCall([edit("/p/.opencode/rules/a.md"), write("src/b.ts"), write("/p/.opencode/rules/c.md")]);
    const found = step(holding, {
      type: "rule-files-found",
      check: { call: placeCall(call, place), number: 1, forbidding: { rules: forbidding().list }, option: "block" },
      deadline: 1_000,
      ruleFiles: ["/p/.opencode/rules/a.md", undefined, "/p/.opencode/rules/c.md"],
    });
    expect(found.effects.map(named)).toEqual(["read-files /p/src/b.ts,/p/.opencode/rules/a.md"]);
    expect(effectOf(found.effects, "read-files")?.check.deadline).toBe(1_000);
  });

  test("a command needs no read: matched at once, as the session works", () => {
    const call = toolCall([{ kind: "command", command: "git push --force" }], { tool: "bash" });
    const found = step(
      { ...holding, agent: "build" },
      { type: "rule-files-found", check: underCheck(call, [undefined]), deadline: 1_000, ruleFiles: [undefined] },
    );
    expect(found.effects.map(named)).toEqual(["match-call git push --force"]);
    expect(effectOf(found.effects, "match-call")).toMatchObject({ tool: "bash", callID: "c1", as: { agent: "build" } });
  });

  test("rule files are not checked: what the call leaves in them is read apart", () => {
    const call = toolCall([write("src/b.ts", "console.log(1)\n"), write(".opencode/rules/c.md", "New.\n")]);
    const read = step(holding, {
      type: "files-read",
      check: underCheck(call, [undefined, "/p/.opencode/rules/c.md"]),
      read: [{ change: 0, path: "/p/src/b.ts", disk: { text: "" } }],
    });
    const matching = effectOf(read.effects, "match-call");
    expect(matching?.changes).toEqual([
      { kind: "file", file: "src/b.ts", added: [{ text: "console.log(1)", line: 1 }] },
    ]);
    expect(matching?.ruleWrites).toEqual([{ path: "/p/.opencode/rules/c.md", after: "New.\n" }]);
  });

  test("a file that cannot be read: a write let through, an edit judged alone, each said", () => {
    const call = toolCall([write("src/b.ts"), edit("src/a.ts")]);
    const disk = { problem: "the file on disk could not be read: EACCES" };
    const read = step(holding, {
      type: "files-read",
      check: underCheck(call, [undefined, undefined]),
      read: [
        { change: 0, path: "/p/src/b.ts", disk },
        { change: 1, path: "/p/src/a.ts", disk },
      ],
    });
    expect(read.effects.map(named)).toEqual(["note unchecked-change", "note unchecked-change", "match-call src/a.ts"]);
    expect(read.effects.slice(0, 2)).toMatchObject([
      { note: { tool: "write", change: { written: "src/b.ts", outcome: "let through" } } },
      { note: { tool: "write", change: { written: "src/a.ts", outcome: "judged alone" } } },
    ]);
  });
});

describe("what a check result means", () => {
  const broke = (rule: Rule, mode: "block" | "warn"): Violation => ({
    rule,
    pattern: (rule.enforce?.forbid[0] ?? rule.enforce?.forbidCommands[0]) as Violation["pattern"],
    mode,
    line: "git push --force",
  });
  const keptC1 = step(holding, proposed(toolCall([write("src/b.ts")]))).state;

  test("a rule that blocks: refused, and the call kept for a result that will not come is dropped", () => {
    const checked = step(keptC1, {
      type: "call-checked",
      tool: "write",
      callID: "c1",
      violations: [broke(noConsole, "block")],
    });
    expect(checked.effects.map(named)).toEqual(["note enforced", "answer refused"]);
    expect(checked.state.calls?.has("c1") ?? false).toBe(false);
  });

  test("a rule that warns: let run, the warning and the call kept for its result", () => {
    const checked = step(keptC1, {
      type: "call-checked",
      tool: "write",
      callID: "c1",
      violations: [broke(noForce, "warn")],
    });
    expect(checked.effects.map(named)).toEqual(["note enforced", "answer"]);
    expect(checked.state.warned?.has("c1")).toBe(true);
    expect(checked.state.calls?.has("c1")).toBe(true);
  });

  test("none broken: let run; what the check could not finish, or tell, is said", () => {
    const checked = step(keptC1, {
      type: "call-checked",
      tool: "write",
      callID: "c1",
      violations: [],
      unreached: [noConsole],
      weakeningUnknown: "a rule file that does not parse",
    });
    expect(checked.effects.map(named)).toEqual(["note check-incomplete", "note weakening-unknown", "answer"]);
  });
});

describe("after a call ran", () => {
  const never = () => {
    throw new Error("the arguments were read again");
  };

  test("the call kept from before it ran is its result's: the arguments are not read again", () => {
    const kept = step(holding, proposed(toolCall([], { tool: "read", files: ["/p/src/a.ts"] }))).state;
    const result = step(kept, finished("read", [], { callID: "c1", readCall: never }));
    expect(result.effects.map(named)).toEqual(["note activated", "note delivered", "answer [typescript] read"]);
    expect(result.state.calls).toBeUndefined();
  });

  test("none kept (another tool of that id, or none seen): its arguments are read, placed once", () => {
    const kept = step(holding, proposed(toolCall([], { tool: "glob", files: [] }))).state;
    const result = step(kept, finished("read", ["/p/src/a.ts"], { callID: "c1" }));
    expect(result.effects.map(named)).toContain("answer [typescript] read");
  });

  test("a listing counts the paths inside the project only", () => {
    const result = step(holding, finished("glob", [], { listed: ["/p/src/b.ts", "/elsewhere/c.ts", "src/d.ts"] }));
    expect([...result.state.activation.files]).toEqual(["src/b.ts"]);
  });

  test("a session that gets no rules, and no warning for the call: answered with nothing, its kept call let go", () => {
    const kept = { ...at("ignored"), calls: new Map<string, PlacedCall>([["c1", placeCall(toolCall([]), place)]]) };
    const result = step(kept, finished("read", ["/p/src/a.ts"], { callID: "c1", readCall: never }));
    expect(result.effects.map(named)).toEqual(["answer"]);
    expect(result.state.calls).toBeUndefined();
    expect([...result.state.activation.files]).toEqual([]);
  });

  test("some rule has content conditions: the text it brought in is matched first, a read's by its file", () => {
    const legacy = makeRule({ name: "legacy", fileContains: "legacyFetch(" });
    const set = { ...ruleSet(style, legacy), contentRules: true };
    const result = step(holding, finished("read", ["/p/src/a.ts"], { rules: set, fileText: () => "legacyFetch(1)" }));
    expect(result.effects.map(named)).toEqual(["scan-contents src/a.ts"]);
    expect(effectOf(result.effects, "scan-contents")?.texts).toEqual([{ file: "src/a.ts", text: "legacyFetch(1)" }]);
    const hit = { rule: "legacy", match: { kind: "content" as const, file: "src/a.ts", pattern: "legacyFetch(" } };
    const scanned = step(result.state, {
      type: "contents-scanned",
      finished: { tool: "read", files: ["src/a.ts"] },
      hits: [hit],
      complete: false,
      rules: set,
    });
    expect(scanned.effects.map(named)).toEqual([
      "note content-unscanned",
      "note activated",
      "note delivered",
      "answer [legacy] read",
    ]);
  });

  test("a write's content and an edit's added lines are the text it brought in, kept from before it ran", () => {
    const set = { ...forbidding(), contentRules: true };
    const kept = step(holding, proposed(toolCall([write("src/b.ts", "b()\n"), edit("src/a.ts")]), set)).state;
    const result = step(kept, finished("write", [], { callID: "c1", readCall: never, rules: set }));
    expect(effectOf(result.effects, "scan-contents")?.texts).toEqual([
      { file: "src/b.ts", text: "b()\n" },
      { file: "src/a.ts", text: "console.log(a)" },
    ]);
  });
});

describe("the paths a session counts", () => {
  test("a user's attachments and the paths its words name, normalised once, in working-set form", () => {
    const asked = step(
      at("held"),
      userTurn("see lib/util.ts", { attachments: ["file:///p/src/a%20b.ts", "/elsewhere/c.ts"] }),
    );
    const [check] = asked.effects;
    if (check?.type !== "check-paths") throw new Error("no check");
    expect(check.turn.files).toEqual(["src/a b.ts", "/elsewhere/c.ts"]);
    expect(check.turn.named).toEqual([{ path: "lib/util.ts", absolute: "/p/lib/util.ts" }]);
    expect([...asked.state.activation.files].sort()).toEqual(["/elsewhere/c.ts", "src/a b.ts"]);
  });

  test("an attachment that cannot be read is that attachment's problem only: said, the rest taken", () => {
    const asked = step(holding, userTurn("hi", { attachments: [42 as unknown as string, "src/a.ts"] }));
    expect(asked.effects.map(named)).toEqual([
      "note unreadable-part",
      "note activated",
      "note delivered",
      "answer [typescript] message",
    ]);
    expect([...asked.state.activation.files]).toEqual(["src/a.ts"]);
  });

  test("a file touched counts only while the session gets rules", () => {
    const touched = (state: SessionState) =>
      step(state, { type: "file-touched", path: "src/a.ts", place, rules }).state.activation.files;
    expect([...touched(at("held"))]).toEqual(["src/a.ts"]);
    expect([...touched(at("ignored"))]).toEqual([]);
  });
});
