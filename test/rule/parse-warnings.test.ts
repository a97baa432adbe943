/**
 * A rule file's warnings as values: globs that cannot be used (dropped, and
 * the rule never widens to always-on), and the codes and severities of the rest.
 */
import { describe, expect, test } from "vitest";
import { activationOf } from "../../src/select/rule-set.js";
import { parse, parsed, PATH } from "../support/parse.js";

describe("parseRule: globs that cannot be used are dropped, and the rule fails closed", () => {
  const dropped = (glob: string, reason: string, line: number, consequence = "") => ({
    path: PATH,
    line,
    message: `glob ${JSON.stringify(glob)} cannot be used (${reason}); this glob is ignored${consequence}`,
  });
  const DOT_SLASH = 'nothing is left once "./" is removed';

  test("`globs: ./` alone: the rule is not always-on but manual, and the warning says so", () => {
    const { rule, warnings } = parse("---\nglobs: ./\n---\nBody");
    expect(warnings).toEqual([
      dropped("./", DOT_SLASH, 2, "; no usable glob is left, so the rule applies only when mentioned"),
    ]);
    expect(rule).toMatchObject({ alwaysApply: false, content: "Body" });
    expect(rule?.conditions).toEqual({});
    expect(activationOf(rule!)).toBe("manual");
  });

  test("with a description, it is on request", () => {
    const { rule, warnings } = parse("---\ndescription: Release steps\nglobs: ['./', '+(a|b)']\n---\nBody");
    expect(warnings).toEqual([
      dropped("./", DOT_SLASH, 3),
      dropped(
        "+(a|b)",
        'the extglob "+(…)" is not supported; use {a,b} or @(a|b)',
        3,
        "; no usable glob is left, so the rule applies only on request",
      ),
    ]);
    expect(rule).toMatchObject({ alwaysApply: false, description: "Release steps" });
    expect(rule?.conditions).toEqual({});
    expect(activationOf(rule!)).toBe("on-request");
  });

  test("the rule's other globs keep working; nothing else changes", () => {
    const { rule, warnings } = parse("---\nglobs:\n  - src/**/*.ts\n  - '[z-a]'\n---\nBody");
    expect(warnings).toEqual([dropped("[z-a]", "the character range z-a is reversed", 2)]);
    expect(rule).toMatchObject({ conditions: { files: ["src/**/*.ts"] }, alwaysApply: undefined });
    expect(activationOf(rule!)).toBe("conditional");
  });

  test("the warning names the line of the key the glob came from", () => {
    const { rule, warnings } = parse("---\ndescription: d\nglobs: src/**\npaths: /\n---\nBody");
    expect(warnings).toEqual([dropped("/", "it is only slashes and names no file", 4)]);
    expect(rule?.conditions.files).toEqual(["src/**"]);
  });

  test("keywords that suffice alone (match: any) still apply; with match: all they are dropped too", () => {
    const any = parse("---\nglobs: ./\nkeywords: migration\n---\nBody");
    expect(any.warnings).toEqual([
      dropped("./", DOT_SLASH, 2, "; no usable glob is left, so the rule applies only by its keywords"),
    ]);
    expect(any.rule).toMatchObject({ conditions: { keywords: ["migration"] }, alwaysApply: undefined });
    expect(any.rule?.conditions.files).toBeUndefined();
    expect(activationOf(any.rule!)).toBe("conditional");

    const all = parse("---\nglobs: ./\nkeywords: migration\nmatch: all\n---\nBody");
    expect(all.warnings).toEqual([
      dropped("./", DOT_SLASH, 2, "; no usable glob is left, so the rule applies only when mentioned"),
    ]);
    expect(all.rule).toMatchObject({ alwaysApply: false });
    expect(all.rule?.conditions).toEqual({});
    expect(activationOf(all.rule!)).toBe("manual");
  });

  test("alwaysApply: true stays always-on; the glob is still reported", () => {
    const { rule, warnings } = parse("---\nalwaysApply: true\nglobs: ./\n---\nBody");
    expect(warnings).toEqual([dropped("./", DOT_SLASH, 3)]);
    expect(rule).toMatchObject({ alwaysApply: true });
    expect(rule?.conditions).toEqual({});
  });

  test("a glob too long or with too many alternatives is dropped with its reason", () => {
    const long = `src/${"a".repeat(1100)}`;
    expect(parse(`---\nglobs: ${long}\n---\nBody`).warnings[0]?.message).toMatch(
      /^glob "src\/a+" cannot be used \(it is longer than 1024 characters\)/,
    );
    expect(parse(`---\nglobs: "${"{a,b}".repeat(9)}"\n---\nBody`).warnings[0]?.message).toContain(
      "its braces expand to more than 256 alternatives",
    );
  });
});

describe("parseRule: an unusable glob's warning is typed", () => {
  test("it says what the rule now applies by, when no glob is left", () => {
    expect(parsed("---\ndescription: d\nglobs: ./\n---\nBody").warnings).toMatchObject([
      { code: "glob-unusable", severity: "warning", glob: "./", nowApplies: "on-request", line: 3 },
    ]);
    expect(parsed("---\nglobs: ['./', src/**]\n---\nBody").warnings).toMatchObject([
      { code: "glob-unusable", nowApplies: undefined },
    ]);
  });
});

describe("parseRule: the warnings are typed", () => {
  test("a wrong type that skips the rule is an error; one replaced by a default is a warning", () => {
    expect(parsed("---\nglobs: 5\n---\nBody").warnings).toEqual([
      {
        code: "key-invalid",
        severity: "error",
        path: PATH,
        rule: "my-rule",
        key: "globs",
        found: { type: "number", json: "5" },
        line: 2,
      },
    ]);
    expect(parsed("---\npriority: [1]\noverride: yes\n---\nBody").warnings).toEqual([
      { code: "key-ignored", severity: "warning", path: PATH, key: "priority", found: "list", line: 2 },
      {
        code: "key-ignored",
        severity: "warning",
        path: PATH,
        key: "override",
        found: { type: "string", json: '"yes"' },
        line: 3,
      },
    ]);
  });

  test("front matter that cannot be read carries its problem's code", () => {
    expect(parsed("---js\nx\n---\nBody").warnings).toEqual([
      { code: "front-matter-language", severity: "error", path: PATH, rule: "my-rule", language: "js", line: 1 },
    ]);
    expect(parsed("---\n---\n").warnings).toMatchObject([{ code: "no-rule-text", severity: "error", line: 3 }]);
    expect(parsed(new Uint8Array([0x61, 0x00])).warnings).toMatchObject([
      { code: "not-text", severity: "error", reason: "it is a binary file (contains NUL bytes)" },
    ]);
  });
});
