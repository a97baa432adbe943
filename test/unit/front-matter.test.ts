import { afterEach, describe, expect, test } from "vitest";
import { splitFrontMatter } from "../../src/rule/front-matter.js";

const g = globalThis as Record<string, unknown>;
afterEach(() => {
  delete g.pwned;
});

describe("splitFrontMatter", () => {
  test("text without front matter is all body", () => {
    expect(splitFrontMatter("Always use tabs.\n")).toEqual({ ok: true, data: {}, body: "Always use tabs.\n", bodyLine: 1 });
  });

  test("YAML front matter is split from the body, with the body's first line", () => {
    const result = splitFrontMatter('---\ndescription: "TS rules"\nglobs:\n  - "src/**/*.ts"\nalwaysApply: false\n---\nUse strict mode.');
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
    expect(splitFrontMatter("----\ntext\n----\n")).toEqual({ ok: true, data: {}, body: "----\ntext\n----\n", bodyLine: 1 });
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
      reason: `front matter is marked "${language}"; only YAML front matter is read, and nothing in it was run`,
    });
    expect(g.pwned).toBeUndefined();
  });

  test("a YAML `!!js/function` tag is refused, not evaluated", () => {
    const result = splitFrontMatter("---\ndescription: !!js/function 'function () { globalThis.pwned = true }'\n---\nbody");
    expect(result).toMatchObject({ ok: false, line: 2 });
    expect(g.pwned).toBeUndefined();
  });

  test("a bare `!!js/function` under a glob key stays an inert string", () => {
    const result = splitFrontMatter("---\nglobs: !!js/function 'function () { globalThis.pwned = true }'\n---\nbody");
    expect(result).toMatchObject({ ok: true, data: { globs: "!!js/function 'function () { globalThis.pwned = true }'" } });
    expect(g.pwned).toBeUndefined();
  });

  test("unterminated front matter is reported on line 1", () => {
    expect(splitFrontMatter("---\nglobs: a\nbody without closing")).toEqual({
      ok: false,
      line: 1,
      reason: "front matter opened with --- on line 1 is never closed by a --- line",
    });
    expect(splitFrontMatter("---")).toMatchObject({ ok: false, line: 1 });
  });

  test("broken YAML names the line of the error in the file", () => {
    const result = splitFrontMatter("---\ndescription: ok\nglobs: a\n  bad: x\n---\nbody");
    expect(result).toEqual({ ok: false, line: 4, reason: "front matter is not valid YAML (bad indentation of a mapping entry)" });
  });

  test("a YAML error further down still names its own line", () => {
    const result = splitFrontMatter("---\ndescription: x\n\n\nkey: : :\n---\nbody");
    expect(result).toMatchObject({ ok: false, line: 5 });
  });

  test("duplicate keys are a YAML error on the second key's line", () => {
    expect(splitFrontMatter("---\nalwaysApply: false\nalwaysApply: true\n---\nbody")).toEqual({
      ok: false,
      line: 3,
      reason: "front matter is not valid YAML (duplicated mapping key)",
    });
  });

  test("front matter that is a list, not key/value pairs, is refused", () => {
    expect(splitFrontMatter("---\n- a\n- b\n---\nbody")).toEqual({ ok: false, line: 2, reason: "front matter is not a list of `key: value` pairs" });
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
