/**
 * A forbidden pattern as a rule writes it → RE2, or why it cannot be used:
 * what a literal and a `/regex/flags` match, and every refusal's reason.
 */
import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, test } from "vitest";
import {
  type ForbidPattern,
  MAX_PATTERN_LENGTH,
  MAX_PATTERN_SIZE,
  readForbidPattern,
} from "../../src/pattern/forbid-pattern.js";

/** The pattern read, or the test fails with its problem. */
function read(written: string): ForbidPattern {
  const result = readForbidPattern(written);
  if ("problem" in result) throw new Error(`${written} ${result.problem}`);
  return result.pattern;
}

const problemOf = (written: string) => {
  const result = readForbidPattern(written);
  return "problem" in result ? result.problem : undefined;
};

/** Does the pattern occur in `text`, as RE2 matches it. */
const found = (written: string, text: string) => RE2JS.compile(read(written).re2).test(text);

describe("literals", () => {
  test("a literal is found as written: no character means anything", () => {
    expect(read("console.log(")).toMatchObject({ kind: "literal", written: "console.log(" });
    expect(found("console.log(", "  console.log(x)")).toBe(true);
    expect(found("console.log(", "consoleXlog(x)")).toBe(false);
    expect(found("a.*b", "a.*b")).toBe(true);
    expect(found("a.*b", "axxb")).toBe(false);
  });

  test("slashes without imsu flags after the last one are a literal: paths, /x/g", () => {
    expect(read("/usr/bin")).toMatchObject({ kind: "literal" });
    expect(found("/usr/bin", "PATH=/usr/bin:/bin")).toBe(true);
    expect(read("/x/g")).toMatchObject({ kind: "literal" });
    expect(found("/x/g", "x")).toBe(false);
    expect(found("/", "a/b")).toBe(true);
  });

  test("property: a literal matches exactly where String.prototype.includes finds it", () => {
    const char = fc.constantFrom("a", "b", ".", "*", "(", ")", "[", "\\", "/", "$", "^", "|", "é", "😀", " ");
    fc.assert(
      fc.property(
        fc.string({ unit: char, minLength: 1, maxLength: 12 }),
        fc.string({ unit: char, maxLength: 60 }),
        (literal, text) => {
          fc.pre(!/^\/.*\/[imsu]*$/s.test(literal));
          expect(found(literal, text)).toBe(text.includes(literal));
          expect(found(literal, `${text}${literal}${text}`)).toBe(true);
        },
      ),
    );
  });
});

describe("regular expressions", () => {
  test("/body/ in JavaScript's syntax", () => {
    expect(read("/:\\s*any\\b/")).toMatchObject({ kind: "regex" });
    expect(found("/:\\s*any\\b/", "let x:  any = 1")).toBe(true);
    expect(found("/:\\s*any\\b/", "let x: anything")).toBe(false);
    expect(found("/git\\s+push\\s+(-f|--force)\\b/", "git push --force origin")).toBe(true);
    expect(found("/git\\s+push\\s+(-f|--force)\\b/", "git push origin --follow-tags")).toBe(false);
  });

  test("flags i, m, s take effect; u is accepted", () => {
    expect(found("/todo/", "TODO")).toBe(false);
    expect(found("/todo/i", "TODO")).toBe(true);
    expect(found("/a.b/", "a\nb")).toBe(false);
    expect(found("/a.b/s", "a\nb")).toBe(true);
    expect(found("/^b/", "a\nb")).toBe(false);
    expect(found("/^b/m", "a\nb")).toBe(true);
    expect(found("/\\u{1F600}/u", "smile 😀")).toBe(true);
    expect(found("/x/imsu", "X")).toBe(true);
  });

  test("JavaScript syntax RE2 writes differently is translated: named groups, \\u, an unescaped /", () => {
    expect(found("/(?<word>ab)c/", "abc")).toBe(true);
    expect(found("/\\u00e9/", "café")).toBe(true);
    expect(found("/a/b/", "a/b")).toBe(true);
    expect(found("/a\\/b/", "a/b")).toBe(true);
  });

  test("RE2's \\Q…\\E quoting stays inside the pattern, closed or not", () => {
    expect(found("/\\Qa(b/", "a(b")).toBe(true);
    expect(found("/\\Qa)\\E|x/", "x")).toBe(true);
  });

  test("the size is the compiled program's: the cost of a character", () => {
    expect(read("/a{500}/").size).toBe(RE2JS.compile("a{500}").programSize());
    expect(read("x".repeat(MAX_PATTERN_LENGTH)).size).toBeLessThanOrEqual(MAX_PATTERN_SIZE);
  });
});

describe("patterns that cannot be used, and why", () => {
  test.each([
    ["", "is empty"],
    ["//", "is an empty regular expression, which matches everywhere"],
    ["//i", "is an empty regular expression, which matches everywhere"],
    [
      "/(?=a)b/",
      'uses a lookahead "(?=…)": patterns are matched by a linear-time engine (RE2), which has no lookarounds',
    ],
    [
      "/a(?!b)/",
      'uses a lookahead "(?!…)": patterns are matched by a linear-time engine (RE2), which has no lookarounds',
    ],
    [
      "/(?<=a)b/",
      'uses a lookbehind "(?<=…)": patterns are matched by a linear-time engine (RE2), which has no lookarounds',
    ],
    [
      "/(?<!a)b/",
      'uses a lookbehind "(?<!…)": patterns are matched by a linear-time engine (RE2), which has no lookarounds',
    ],
    [
      "/(a)\\1/",
      'uses a backreference "\\1": patterns are matched by a linear-time engine (RE2), which has no backreferences',
    ],
    [
      "/(?<q>['\"]).*\\k<q>/",
      'uses a backreference "\\k<…>": patterns are matched by a linear-time engine (RE2), which has no backreferences',
    ],
    ["/a)(b/", 'has a ")" that closes no group'],
    ["/[/", "is not a valid regular expression (missing closing ]: `[`)"],
    ["/(a/", "is not a valid regular expression (missing closing ))"],
    ["/a{2,1001}/", "is not a valid regular expression (invalid repeat count: `{2,1001}`)"],
    ["/a**/", "is not a valid regular expression (invalid nested repetition operator: `**`)"],
    ["/a{999}b/", "compiles to 1,002 steps, more than 1,000; write it simpler"],
    ["/\\s*$/", "matches empty text, so every line would break the rule"],
    ["/(foo)?/", "matches empty text, so every line would break the rule"],
    ["x".repeat(MAX_PATTERN_LENGTH + 1), "is 501 characters long, more than 500"],
  ])("%j %s", (written, problem) => {
    expect(problemOf(written)).toBe(problem);
  });

  test("lookaround characters inside a class or escaped are text, not syntax", () => {
    expect(found("/[(?=]x/", "=x")).toBe(true);
    expect(found("/\\(?=x/", "=x")).toBe(true);
  });

  test("a pattern of many big repeats is refused from its text, before RE2 spends time compiling it", () => {
    const huge = `/${"a{1000}".repeat(70)}/`;
    const start = performance.now();
    expect(problemOf(huge)).toMatch(/^compiles to about 70,\d{3} steps, more than 1,000; write it simpler$/);
    // Compiling it takes some 150 ms (70,000 instructions).
    expect(performance.now() - start).toBeLessThan(50);
  });
});
