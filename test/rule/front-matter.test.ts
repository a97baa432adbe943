import { afterEach, describe, expect, test } from "vitest";
import { splitFrontMatter } from "../../src/rule/front-matter.js";
import { parseRule } from "../../src/rule/parse.js";
import { candidate, utf8 } from "../support/rules.js";
import { shown } from "../support/shown-warnings.js";

const g = globalThis as Record<string, unknown>;
afterEach(() => {
  delete g.pwned;
});

describe("splitFrontMatter", () => {
  test("text without front matter is all body", () => {
    expect(splitFrontMatter("Always use tabs.\n")).toEqual({
      ok: true,
      data: {},
      body: "Always use tabs.\n",
      bodyLine: 1,
    });
  });

  test("YAML front matter is split from the body, with the body's first line", () => {
    const result = splitFrontMatter(
      '---\ndescription: "TS rules"\nglobs:\n  - "src/**/*.ts"\nalwaysApply: false\n---\nUse strict mode.',
    );
    expect(result).toEqual({
      ok: true,
      data: { description: "TS rules", globs: ["src/**/*.ts"], alwaysApply: false },
      body: "Use strict mode.",
      bodyLine: 7,
    });
  });

  test("`---yaml` and `---yml` openings are read as YAML", () => {
    expect(splitFrontMatter("---yaml\na: 1\n---\nbody")).toMatchObject({ ok: true, data: { a: 1 } });
    expect(splitFrontMatter("---yml\na: 1\n---\nbody")).toMatchObject({ ok: true, data: { a: 1 } });
  });

  test("an empty front matter block closes and yields no data", () => {
    expect(splitFrontMatter("---\n---\nbody")).toEqual({ ok: true, data: {}, body: "body", bodyLine: 3 });
  });

  test("a `----` line (Markdown rule) is not a front matter delimiter", () => {
    expect(splitFrontMatter("----\ntext\n----\n")).toEqual({
      ok: true,
      data: {},
      body: "----\ntext\n----\n",
      bodyLine: 1,
    });
  });

  test("`---` not on line 1 is not front matter", () => {
    const text = "Intro\n---\na: 1\n---\n";
    expect(splitFrontMatter(text)).toEqual({ ok: true, data: {}, body: text, bodyLine: 1 });
  });

  test.each([
    ["js", "---js\nglobalThis.pwned = true; throw new Error('ran')\n---\nbody"],
    ["javascript", "---javascript\n(function(){ globalThis.pwned = true; return {} })()\n---\nbody"],
    ["coffee", "---coffee\nglobalThis.pwned = true\n---\nbody"],
    ["json", '---json\n{"a": 1}\n---\nbody'],
    ["toml", "---toml\na = 1\n---\nbody"],
  ])("`---%s` front matter is refused and never run", (language, text) => {
    const result = splitFrontMatter(text);
    expect(result).toEqual({
      ok: false,
      line: 1,
      problem: { code: "front-matter-language", language },
    });
    expect(g.pwned).toBeUndefined();
  });

  test("a YAML `!!js/function` tag is refused, not evaluated", () => {
    const result = splitFrontMatter(
      "---\ndescription: !!js/function 'function () { globalThis.pwned = true }'\n---\nbody",
    );
    expect(result).toMatchObject({ ok: false, line: 2 });
    expect(g.pwned).toBeUndefined();
  });

  test("a bare `!!js/function` under a glob key stays an inert string", () => {
    const result = splitFrontMatter("---\nglobs: !!js/function 'function () { globalThis.pwned = true }'\n---\nbody");
    expect(result).toMatchObject({
      ok: true,
      data: { globs: "!!js/function 'function () { globalThis.pwned = true }'" },
    });
    expect(g.pwned).toBeUndefined();
  });

  test("unterminated front matter is reported on line 1", () => {
    expect(splitFrontMatter("---\nglobs: a\nbody without closing")).toEqual({
      ok: false,
      line: 1,
      problem: { code: "front-matter-unclosed" },
    });
    expect(splitFrontMatter("---")).toMatchObject({ ok: false, line: 1 });
  });

  test("broken YAML names the line of the error in the file", () => {
    const result = splitFrontMatter("---\ndescription: ok\nglobs: a\n  bad: x\n---\nbody");
    // The block is closed: the text after it is kept, for a tool that reads the file anyway.
    expect(result).toEqual({
      ok: false,
      line: 4,
      problem: { code: "yaml-invalid", reason: "bad indentation of a mapping entry" },
      body: "body",
      bodyLine: 6,
    });
  });

  test("a YAML error further down still names its own line", () => {
    const result = splitFrontMatter("---\ndescription: x\n\n\nkey: : :\n---\nbody");
    expect(result).toMatchObject({ ok: false, line: 5 });
  });

  test("duplicate keys are a YAML error on the second key's line", () => {
    expect(splitFrontMatter("---\nalwaysApply: false\nalwaysApply: true\n---\nbody")).toEqual({
      ok: false,
      line: 3,
      problem: { code: "yaml-invalid", reason: "duplicated mapping key" },
      body: "body",
      bodyLine: 5,
    });
  });

  test("front matter that is a list, not key/value pairs, is refused", () => {
    expect(splitFrontMatter("---\n- a\n- b\n---\nbody")).toEqual({
      ok: false,
      line: 2,
      problem: { code: "front-matter-not-mapping" },
      body: "body",
      bodyLine: 5,
    });
  });

  test("front matter that is a plain scalar is refused", () => {
    expect(splitFrontMatter("---\njust text\n---\nbody")).toMatchObject({ ok: false, line: 2 });
  });

  test.each([
    ["globs: *.ts", "*.ts"],
    ["globs: *.ts, *.tsx", "*.ts, *.tsx"],
    ["globs: {src,lib}/**/*.ts", "{src,lib}/**/*.ts"],
    ["globs: src/**/*.ts, lib/**/*.ts", "src/**/*.ts, lib/**/*.ts"],
    ["globs: src/{a,b}/**", "src/{a,b}/**"],
    ["globs: *.it's", "*.it's"],
  ])("Cursor-style unquoted `%s` is read as a string", (line, value) => {
    expect(splitFrontMatter(`---\n${line}\n---\nbody`)).toMatchObject({ ok: true, data: { globs: value } });
  });

  test("quoting of bare globs does not touch other keys", () => {
    // `*x` under another key is still a YAML alias, and an error.
    expect(splitFrontMatter("---\ndescription: *x\n---\nbody").ok).toBe(false);
  });
});

describe("splitFrontMatter: one closing rule, one YAML parse", () => {
  const PATH = "/project/.opencode/rules/scoped.md";
  const parse = (text: string) => parseRule(candidate("scoped", PATH), utf8(text));
  const STRAY =
    "---\ndescription: DB rules\n---x: 1\nglobs: src/db/**\nalwaysApply: false\n---\nOnly for database code.\n";

  test("a `---x: 1` line inside front matter fails closed, naming its line", () => {
    expect(splitFrontMatter(STRAY)).toEqual({
      ok: false,
      line: 3,
      problem: { code: "front-matter-stray-delimiter", strayLine: 3 },
    });
  });

  test("such a rule is skipped with a warning naming file and line, never delivered as always-on", () => {
    const { rule, warnings } = parse(STRAY);
    expect(rule).toBeUndefined();
    expect(shown(warnings)).toEqual([
      {
        path: PATH,
        line: 3,
        message: 'front matter line 3 starts with "---" but is not a closing "---" line; rule "scoped" skipped',
      },
    ]);
  });

  test.each([
    ["---\na: 1\n----\nbody", 3],
    ["---\na: 1\n--- # end\nbody", 3],
    ["---\na: 1\nb: 2\n---b: 3", 4],
    ["---yaml\n---x\n---\nbody", 2],
  ])("%j: a stray `---` line is refused on line %i", (text, line) => {
    expect(splitFrontMatter(text)).toEqual({
      ok: false,
      line,
      problem: { code: "front-matter-stray-delimiter", strayLine: line },
    });
  });

  test("a closing line with trailing spaces or tabs closes", () => {
    expect(splitFrontMatter("---\nglobs: src/**\n---  \t\nScoped text.")).toEqual({
      ok: true,
      data: { globs: "src/**" },
      body: "Scoped text.",
      bodyLine: 4,
    });
    const { rule, warnings } = parse("---\nglobs: src/**\n--- \nScoped text.\n");
    expect(warnings).toEqual([]);
    expect(rule).toMatchObject({ conditions: { files: ["src/**"] }, content: "Scoped text." });
  });

  test("`---` indented inside a block scalar is text, not a delimiter", () => {
    expect(splitFrontMatter("---\ndescription: |\n  --- not the end\n---\nbody")).toEqual({
      ok: true,
      data: { description: "--- not the end\n" },
      body: "body",
      bodyLine: 5,
    });
  });

  test("`---` lines after the closing one belong to the body", () => {
    expect(splitFrontMatter("---\na: 1\n---\n---x\n---\ntext")).toEqual({
      ok: true,
      data: { a: 1 },
      body: "---x\n---\ntext",
      bodyLine: 4,
    });
  });

  test("a block of only comments and blank lines has no keys", () => {
    expect(splitFrontMatter("---\n# a comment\n\n---\nbody")).toEqual({
      ok: true,
      data: {},
      body: "body",
      bodyLine: 5,
    });
  });

  test("the body after a closing line at the very end is empty", () => {
    expect(splitFrontMatter("---\na: 1\n---")).toEqual({ ok: true, data: { a: 1 }, body: "", bodyLine: 4 });
  });

  test("a YAML error on the last line of the block names that file line", () => {
    expect(splitFrontMatter("---\na: 1\nb: 2\nc: [\n---\nbody")).toMatchObject({ ok: false, line: 5 });
  });
});

describe("splitFrontMatter: YAML alias and merge bombs stay bounded", () => {
  /** Nine levels of nine aliases: 9^9 (387 million) "lol"s if anything expanded them. */
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (const [previous, key] of ["ab", "bc", "cd", "de", "ef", "fg", "gh", "hi"])
    laughs.push(`${key}: &${key} [${Array(9).fill(`*${previous}`).join(",")}]`);

  test("billion laughs: parsed at once, each alias a shared reference to its anchor, never a copy", () => {
    const started = performance.now();
    const result = splitFrontMatter(`---\n${laughs.join("\n")}\n---\nbody`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.ok).toBe(true);
    const data = (result as { data: Record<string, unknown[]> }).data;
    expect(Object.keys(data)).toEqual(["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
    // Every item of `i` is the same array as `h`: 81 references in memory, not 9^9 strings.
    expect(data.i).toHaveLength(9);
    expect(data.i!.every((item) => item === data.h)).toBe(true);
    expect(data.b!.every((item) => item === data.a)).toBe(true);
  });

  test("billion laughs under a rule key is refused by its shape; the rule is skipped", () => {
    const { rule, warnings } = parseRule(
      candidate("lol", "/p/lol.md"),
      utf8(`---\n${laughs.join("\n")}\nkeywords: *i\n---\nbody\n`),
    );
    expect(rule).toBeUndefined();
    expect(shown(warnings)).toEqual([
      {
        path: "/p/lol.md",
        line: 11,
        message:
          'front matter key "keywords" should be a word, a comma-separated list of words, or a YAML list of words, found a list; rule "lol" skipped',
      },
    ]);
  });

  test("a merge-key (`<<`) bomb is refused by js-yaml's cap on merged keys, with its line", () => {
    const lines = [`m0: &m0 {${Array.from({ length: 2000 }, (_, i) => `k${i}: 1`).join(", ")}}`];
    for (let i = 1; i < 2000; i++) lines.push(`m${i}: &m${i} {<<: *m${i - 1}, x${i}: 1}`);
    const started = performance.now();
    const result = splitFrontMatter(`---\n${lines.join("\n")}\n---\nbody`);
    expect(performance.now() - started).toBeLessThan(1000);
    // m5 merges the fifth copy of m0's 2000 keys, past js-yaml's 10,000; it is on file line 7.
    expect(result).toMatchObject({
      ok: false,
      line: 7,
      problem: { code: "yaml-invalid", reason: "merge keys exceeded maxTotalMergeKeys (10000)" },
      body: "body",
    });
  });
});
