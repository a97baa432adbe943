/**
 * Reading a rule's conditions from front matter, kind by kind, and what is
 * said of them (rule/condition-warnings.ts): a kind only the plugin's own
 * folders read is ignored in another tool's file, as that tool ignores it,
 * with the warning other foreign keys get.
 */
import { describe, expect, test } from "vitest";
import { KINDS } from "../../src/conditions/list.js";
import type { LostContext } from "../../src/conditions/lost.js";
import { readConditions } from "../../src/conditions/read.js";
import { takeConditions } from "../../src/rule/condition-warnings.js";
import { warningLine } from "../../src/rule/warnings.js";

const file = (text: string, tool?: string) => ({ path: "/p/r.md", text, data: {}, ...(tool ? { tool } : {}) });
const rule: LostContext = { alwaysApply: undefined, match: "any" };

describe("a kind the plugin's own folders alone read", () => {
  const data = { globs: "src/**", branches: ["main"] };
  const text = "---\nglobs: src/**\nbranches: [main]\n---\nBody";

  test("in the plugin's own folder: read as any kind", () => {
    const read = readConditions(data, false, KINDS);
    expect(read).toEqual({ conditions: { files: ["src/**"], branches: ["main"] }, problems: [], notRead: [] });
  });

  test("in another tool's file: not read, and said so as that tool's other foreign keys are", () => {
    const read = readConditions(data, true, KINDS);
    expect(read).toEqual({ conditions: { files: ["src/**"] }, problems: [], notRead: ["branches"] });
    const taken = takeConditions(read, rule, { ...file(text, "Cursor"), data });
    expect(taken.first.map((warning) => warningLine(warning))).toEqual([
      '/p/r.md:3: Cursor does not read front matter key "branches"; ignored here too, as in Cursor',
    ]);
    expect(taken.conditions).toEqual({ files: ["src/**"] });
  });

  test("every kind of the list but branches is read in other tools' files, as before", () => {
    expect(KINDS.filter((kind) => !kind.inOtherTools).map(({ kind }) => kind)).toEqual(["branches"]);
  });
});

describe("what is said of the conditions read", () => {
  const take = (data: Record<string, unknown>, text: string, context = rule) =>
    takeConditions(readConditions(data, false), context, { ...file(text), data });

  test("a scope naming none is said first; left-out patterns, then lost triggers, last", () => {
    const text = "---\nagents: []\nglobs: ./\nfileContains: [/(?=a)/]\n---\nBody";
    const taken = take({ agents: [], globs: "./", fileContains: ["/(?=a)/"] }, text);
    expect(taken.first.map(({ code }) => code)).toEqual(["scope-empty"]);
    expect(taken.last.map(({ code, line }) => [code, line])).toEqual([
      ["forbid-pattern-unusable", 4],
      ["glob-unusable", 3],
      ["content-condition-lost", 4],
    ]);
    expect(taken).toMatchObject({ conditions: {}, alwaysApply: false });
  });

  test("a trigger's usable values dropped with another lost under match: all: its condition is said lost too", () => {
    const text = "---\nglobs: ./\nfileContains: TODO\nmatch: all\n---\nBody";
    const taken = take({ globs: "./", fileContains: "TODO" }, text, { alwaysApply: undefined, match: "all" });
    expect(taken.last.map(({ code }) => code)).toEqual(["glob-unusable", "content-condition-lost"]);
    expect(taken.conditions).toEqual({});
  });

  test("a key its kind cannot read is the problem that skips the rule", () => {
    expect(readConditions({ keywords: 5, agents: { a: 1 } }, false).problems).toEqual([
      { code: "unreadable", key: "keywords" },
      { code: "unreadable", key: "agents" },
    ]);
  });
});
