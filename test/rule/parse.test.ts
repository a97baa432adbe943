import { afterEach, describe, expect, test } from "vitest";
import { readList } from "../../src/conditions/front-matter-list.js";
import { utf8 } from "../support/rules.js";
import { parse, PATH } from "../support/parse.js";

const g = globalThis as Record<string, unknown>;
afterEach(() => {
  delete g.pwned;
});

describe("parseRule: good rule files", () => {
  test("a rule without front matter keeps its trimmed text and applies unconditionally", () => {
    const { rule, warnings } = parse("\n\nThis rule should always apply.\n\n");
    expect(warnings).toEqual([]);
    expect(rule).toMatchObject({
      name: "my-rule",
      scope: "project",
      source: "native",
      path: PATH,
      displayPath: ".opencode/rules/my-rule.md",
      content: "This rule should always apply.",
      conditions: {},
      alwaysApply: undefined,
      match: "any",
      priority: 50,
      override: false,
      unknownKeys: [],
    });
    expect(rule?.description).toBeUndefined();
    expect(rule?.conditions).toEqual({});
  });

  test("the spec's metadata rule: globs as a YAML list", () => {
    const { rule, warnings } = parse(
      '---\nglobs:\n  - "src/components/**/*.ts"\n---\n\nThis is a rule for TypeScript components.\n',
    );
    expect(warnings).toEqual([]);
    expect(rule?.conditions.files).toEqual(["src/components/**/*.ts"]);
    expect(rule?.content).toBe("This is a rule for TypeScript components.");
  });

  test("description, alwaysApply and enabled: true are read", () => {
    const { rule, warnings } = parse(
      "---\ndescription: '  Style guide  '\nalwaysApply: true\nenabled: true\n---\nBody",
    );
    expect(warnings).toEqual([]);
    expect(rule).toMatchObject({ description: "Style guide", alwaysApply: true, content: "Body" });
  });

  test("alwaysApply: false is kept as false, not dropped", () => {
    expect(parse("---\nalwaysApply: false\n---\nBody").rule?.alwaysApply).toBe(false);
  });

  test("CRLF line endings are parsed like LF", () => {
    const { rule, warnings } = parse(
      "---\r\nglobs: src/**/*.ts\r\ndescription: d\r\n---\r\nLine one.\r\nLine two.\r\n",
    );
    expect(warnings).toEqual([]);
    expect(rule).toMatchObject({
      conditions: { files: ["src/**/*.ts"] },
      description: "d",
      content: "Line one.\nLine two.",
    });
    expect(rule?.content).not.toContain("\r");
  });

  test("lone CR line endings are parsed like LF", () => {
    const { rule, warnings } = parse("---\rglobs: src/**/*.ts\r---\rLine one.\rLine two.\r");
    expect(warnings).toEqual([]);
    expect(rule).toMatchObject({ conditions: { files: ["src/**/*.ts"] }, content: "Line one.\nLine two." });
  });

  test("a UTF-8 BOM does not hide the front matter", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("---\nglobs: '*.ts'\n---\nTyped.")]);
    const { rule, warnings } = parse(bytes);
    expect(warnings).toEqual([]);
    expect(rule).toMatchObject({ conditions: { files: ["*.ts"] }, content: "Typed." });
    expect(rule?.content.charCodeAt(0)).not.toBe(0xfeff);
  });

  test("an empty front matter block leaves a rule with no conditions", () => {
    const { rule } = parse("---\n---\nBody");
    expect(rule).toMatchObject({ content: "Body", alwaysApply: undefined });
    expect(rule?.conditions).toEqual({});
  });

  test("unknown keys are kept in rule.unknownKeys and do not stop the rule", () => {
    const { rule, warnings } = parse("---\ndescription: d\nauthor: me\ntags: [a]\n---\nBody");
    expect(warnings).toEqual([]);
    expect(rule?.unknownKeys).toEqual(["author", "tags"]);
  });

  test("enabled: false hides the rule silently", () => {
    expect(parse("---\nenabled: false\n---\nBody")).toEqual({ warnings: [] });
  });
});

describe("parseRule: globs as users write them", () => {
  test.each([
    ["a YAML list", "globs:\n  - src/**/*.ts\n  - lib/**/*.ts", ["src/**/*.ts", "lib/**/*.ts"]],
    ["a flow list", 'globs: ["src/**/*.ts", "lib/**/*.ts"]', ["src/**/*.ts", "lib/**/*.ts"]],
    ["one string", "globs: src/**/*.ts", ["src/**/*.ts"]],
    ["a quoted string", 'globs: "src/**/*.ts"', ["src/**/*.ts"]],
    ["Cursor's comma-separated string", "globs: src/**/*.ts, lib/**/*.ts", ["src/**/*.ts", "lib/**/*.ts"]],
    ["comma-separated without spaces", "globs: src/**/*.ts,lib/**/*.ts", ["src/**/*.ts", "lib/**/*.ts"]],
    ["braces with commas kept whole", "globs: src/{a,b}/**", ["src/{a,b}/**"]],
    ["braces and commas together", "globs: src/{a,b}/**, test/{c,d}/*.ts", ["src/{a,b}/**", "test/{c,d}/*.ts"]],
    ["unquoted Cursor-style *.ts", "globs: *.ts", ["*.ts"]],
    ["unquoted Cursor-style list", "globs: *.ts, *.tsx", ["*.ts", "*.tsx"]],
    ["unquoted leading brace", "globs: {src,lib}/**/*.ts", ["{src,lib}/**/*.ts"]],
    ["empty value", "globs:", undefined],
    ["empty string", 'globs: ""', undefined],
    ["a list item holding commas", "globs:\n  - a/*.ts, b/*.ts", ["a/*.ts", "b/*.ts"]],
  ])("globs as %s", (_label, line, globs) => {
    const { rule, warnings } = parse(`---\n${line}\n---\nBody`);
    expect(warnings).toEqual([]);
    expect(rule?.conditions.files).toEqual(globs);
  });

  test("glob aliases from other tools (paths, applyTo) are read as globs", () => {
    expect(parse("---\npaths: a/**\napplyTo: '*.md'\n---\nBody").rule?.conditions.files).toEqual(["a/**", "*.md"]);
  });

  test("readList accepts lists, strings, nothing; refuses anything else", () => {
    expect(readList(undefined)).toEqual([]);
    expect(readList(null)).toEqual([]);
    expect(readList(" a , 'b' ,")).toEqual(["a", "b"]);
    expect(readList(["x,{y,z}"])).toEqual(["x", "{y,z}"]);
    expect(readList(5)).toBeUndefined();
    expect(readList(true)).toBeUndefined();
    expect(readList({ a: 1 })).toBeUndefined();
    expect(readList(["a", 1])).toBeUndefined();
  });
});

describe("parseRule: bad rule files are skipped with a warning that says why", () => {
  const skipped = (message: string, line?: number) => ({
    warnings: [{ path: PATH, line, message: `${message}; rule "my-rule" skipped` }],
  });

  test("binary file (NUL bytes)", () => {
    expect(parse(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x0a]))).toEqual(
      skipped("it is a binary file (contains NUL bytes)"),
    );
  });

  test("invalid UTF-8", () => {
    expect(parse(new Uint8Array([0x52, 0x75, 0x6c, 0x65, 0xc3, 0x28]))).toEqual(skipped("it is not valid UTF-8 text"));
  });

  test("empty file", () => {
    expect(parse("")).toEqual(skipped("the file is empty"));
  });

  test("whitespace-only file", () => {
    expect(parse("  \n\t\r\n  \n")).toEqual(skipped("the file is empty"));
  });

  test("front matter only, naming the line where the text should start", () => {
    expect(parse("---\nglobs: src/**\n---\n")).toEqual(skipped("the file has front matter but no rule text", 4));
    expect(parse("---\nalwaysApply: true\n---\n\n   \n")).toEqual(
      skipped("the file has front matter but no rule text", 4),
    );
  });

  test("front matter only, with CRLF, still names the right line", () => {
    expect(parse("---\r\ndescription: d\r\nglobs: a\r\n---\r\n")).toEqual(
      skipped("the file has front matter but no rule text", 5),
    );
  });

  test("broken YAML names the YAML error's line in the file", () => {
    expect(parse("---\ndescription: ok\nglobs: a\n  bad: x\n---\nBody")).toEqual(
      skipped("front matter is not valid YAML (bad indentation of a mapping entry)", 4),
    );
  });

  test("broken YAML after a BOM and CRLF still names the right line", () => {
    const bytes = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...utf8("---\r\ndescription: ok\r\nglobs: a\r\n  bad: x\r\n---\r\nBody"),
    ]);
    expect(parse(bytes)).toEqual(skipped("front matter is not valid YAML (bad indentation of a mapping entry)", 4));
  });

  test("an unclosed YAML flow list is reported as a YAML error, not read as always-on", () => {
    const { rule, warnings } = parse("---\ndescription: ok\nglobs: [a\nalwaysApply: true\n---\nBody");
    expect(rule).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/^front matter is not valid YAML \(.+\); rule "my-rule" skipped$/);
    expect(warnings[0]?.line).toBeTypeOf("number");
  });

  test("unterminated front matter", () => {
    expect(parse("---\nglobs: src/**\nThe rule text, but the block never closes.")).toEqual(
      skipped("front matter opened with --- on line 1 is never closed by a --- line", 1),
    );
  });

  test.each(["js", "javascript", "coffee"])("`---%s` front matter is skipped and never executed", (language) => {
    const result = parse(`---${language}\nglobalThis.pwned = true; throw new Error("executed")\n---\nBody`);
    expect(result).toEqual(
      skipped(`front matter is marked "${language}"; only YAML front matter is read, and nothing in it was run`, 1),
    );
    expect(g.pwned).toBeUndefined();
  });

  test("`---js` returning an object is not executed either", () => {
    const result = parse("---js\n{ alwaysApply: (globalThis.pwned = true) }\n---\nBody");
    expect(result.rule).toBeUndefined();
    expect(g.pwned).toBeUndefined();
  });

  test("duplicate keys", () => {
    expect(parse("---\nglobs: a/**\nglobs: b/**\n---\nBody")).toEqual(
      skipped("front matter is not valid YAML (duplicated mapping key)", 3),
    );
  });

  test.each([
    [
      "globs",
      "globs: 5",
      'front matter key "globs" should be a glob, a comma-separated list of globs, or a YAML list of globs, found number 5',
    ],
    [
      "globs",
      "globs: true",
      'front matter key "globs" should be a glob, a comma-separated list of globs, or a YAML list of globs, found boolean true',
    ],
    [
      "globs",
      "globs: [1, 2]",
      'front matter key "globs" should be a glob, a comma-separated list of globs, or a YAML list of globs, found a list',
    ],
    [
      "globs",
      "globs:\n  a: b",
      'front matter key "globs" should be a glob, a comma-separated list of globs, or a YAML list of globs, found a mapping',
    ],
    ["alwaysApply", 'alwaysApply: "yes"', 'front matter key "alwaysApply" should be true or false, found string "yes"'],
    ["alwaysApply", "alwaysApply: 1", 'front matter key "alwaysApply" should be true or false, found number 1'],
    ["enabled", "enabled: no", 'front matter key "enabled" should be true or false, found string "no"'],
    ["enabled", "enabled: 0", 'front matter key "enabled" should be true or false, found number 0'],
  ])("wrong type for %s (`%s`) skips the rule: fail closed, never always-on", (_key, line, message) => {
    const result = parse(`---\ndescription: d\n${line}\n---\nBody`);
    expect(result).toEqual(skipped(message, 3));
    expect(result.rule).toBeUndefined();
  });

  test("wrong-typed globs next to alwaysApply: false still skip the rule", () => {
    expect(parse("---\nalwaysApply: false\nglobs: 3\n---\nBody").rule).toBeUndefined();
  });

  test("a description of the wrong type is ignored with a warning; the rule is kept", () => {
    const { rule, warnings } = parse("---\ndescription: 42\nglobs: src/**\n---\nBody");
    expect(rule).toMatchObject({ content: "Body", conditions: { files: ["src/**"] } });
    expect(rule?.description).toBeUndefined();
    expect(warnings).toEqual([
      {
        path: PATH,
        line: 2,
        message: 'front matter key "description" should be text, found number 42; description ignored',
      },
    ]);
  });

  test("a description that is a list is ignored with a warning", () => {
    const { rule, warnings } = parse("---\ndescription:\n  - a\n---\nBody");
    expect(rule).toBeDefined();
    expect(warnings[0]?.message).toBe(
      'front matter key "description" should be text, found a list; description ignored',
    );
  });

  test("an empty description is simply absent, without a warning", () => {
    const { rule, warnings } = parse("---\ndescription:\n---\nBody");
    expect(warnings).toEqual([]);
    expect(rule?.description).toBeUndefined();
  });

  test("an out-of-range priority falls back to the default with a warning", () => {
    const { rule, warnings } = parse("---\npriority: 500\n---\nBody");
    expect(rule?.priority).toBe(50);
    expect(warnings).toEqual([
      {
        path: PATH,
        line: 2,
        message:
          'front matter key "priority" should be a whole number from 1 to 100, found number 500; default 50 used',
      },
    ]);
  });
});
