/**
 * What a rule forbids, from its front matter: `forbid`, `forbidCommands` and
 * `enforce`; patterns that cannot be used left out with a warning on their
 * own line, and the rule delivered all the same.
 */
import { describe, expect, test } from "vitest";
import { MAX_PATTERNS_PER_RULE } from "../../src/pattern/forbid-pattern.js";
import { readEnforcement } from "../../src/rule/enforcement.js";
import type { RuleEnforcement } from "../../src/rule/rule.js";
import { parse, parsed, PATH } from "../support/parse.js";

/** The enforcement as written: mode and the patterns of each key. */
const written = (enforce: RuleEnforcement | undefined) =>
  enforce && {
    mode: enforce.mode,
    forbid: enforce.forbid.map((p) => p.written),
    forbidCommands: enforce.forbidCommands.map((p) => p.written),
  };

const LINEAR_LOOKAROUND = "patterns are matched by a linear-time engine (RE2), which has no lookarounds";

describe("forbid, forbidCommands, enforce", () => {
  test("lists of patterns, literals and /regex/, and the mode", () => {
    const text = [
      "---",
      "globs: src/**/*.ts",
      "forbid:",
      '  - "console.log("',
      "  - /:\\s*any\\b/",
      "forbidCommands:",
      "  - /git\\s+push\\s+(-f|--force)\\b/",
      "enforce: warn",
      "---",
      "No logging, no any, no force push.",
    ].join("\n");
    const { rule, warnings } = parsed(text);
    expect(warnings).toEqual([]);
    expect(written(rule?.enforce)).toEqual({
      mode: "warn",
      forbid: ["console.log(", "/:\\s*any\\b/"],
      forbidCommands: ["/git\\s+push\\s+(-f|--force)\\b/"],
    });
    expect(rule?.enforce?.forbid.map((p) => p.kind)).toEqual(["literal", "regex"]);
    expect(rule?.unknownKeys).toEqual([]);
    expect(rule?.content).toBe("No logging, no any, no force push.");
  });

  test("one pattern as a string; block unless the rule says warn; a comma is part of the pattern", () => {
    const { rule, warnings } = parsed('---\nforbid: "foo(a, b)"\n---\nBody');
    expect(warnings).toEqual([]);
    expect(written(rule?.enforce)).toEqual({ mode: "block", forbid: ["foo(a, b)"], forbidCommands: [] });
    expect(written(parsed("---\nforbidCommands: rm -rf /\nenforce: block\n---\nBody").rule?.enforce)).toEqual({
      mode: "block",
      forbid: [],
      forbidCommands: ["rm -rf /"],
    });
  });

  test("a rule without them forbids nothing; empty keys neither, silently", () => {
    expect(parsed("---\nglobs: src/**\n---\nBody").rule?.enforce).toBeUndefined();
    const empty = parse("---\nforbid:\nforbidCommands: []\n---\nBody");
    expect(empty.warnings).toEqual([]);
    expect(empty.rule?.enforce).toBeUndefined();
  });
});

describe("what cannot be used is left out, with a warning on its own line; the rule still loads", () => {
  test("an unusable pattern, among usable ones: the warning names it, says why, on its line", () => {
    const text = [
      "---",
      "forbid:",
      "  - console.log(",
      "  - /(?=a)b/",
      '  - "debugger"',
      "  - /x{2,1001}/",
      "---",
      "Body",
    ].join("\n");
    const { rule, warnings } = parse(text);
    expect(written(rule?.enforce)?.forbid).toEqual(["console.log(", "debugger"]);
    expect(warnings).toEqual([
      {
        path: PATH,
        line: 4,
        message: `forbidden pattern "/(?=a)b/" in "forbid" uses a lookahead "(?=…)": ${LINEAR_LOOKAROUND}; this pattern was ignored`,
      },
      {
        path: PATH,
        line: 6,
        message:
          'forbidden pattern "/x{2,1001}/" in "forbid" is not a valid regular expression (invalid repeat count: `{2,1001}`); this pattern was ignored',
      },
    ]);
    expect(rule?.content).toBe("Body");
  });

  test("the same bad pattern twice: each warning on its own line; a flow list: the key's line", () => {
    const twice = parse("---\nforbid:\n  - //\n  - //\n---\nBody");
    expect(twice.warnings.map((w) => w.line)).toEqual([3, 4]);
    const flow = parse("---\ndescription: d\nforbidCommands: [ok, //]\n---\nBody");
    expect(flow.warnings.map((w) => [w.line, w.message])).toEqual([
      [
        3,
        'forbidden pattern "//" in "forbidCommands" is an empty regular expression, which matches everywhere; this pattern was ignored',
      ],
    ]);
    expect(written(flow.rule?.enforce)?.forbidCommands).toEqual(["ok"]);
  });

  test("a value that is no pattern: the key, or the item, is ignored", () => {
    const mapping = parse("---\nforbid:\n  a: 1\n---\nBody");
    expect(mapping.rule?.enforce).toBeUndefined();
    expect(mapping.warnings).toEqual([
      {
        path: PATH,
        line: 2,
        message:
          'front matter key "forbid" should be a pattern or a YAML list of patterns, found a mapping; it was ignored, so it forbids nothing',
      },
    ]);
    const item = parse("---\nforbid:\n  - eval(\n  - 42\n---\nBody");
    expect(item.warnings).toEqual([
      {
        path: PATH,
        line: 4,
        message: 'item 2 of front matter key "forbid" should be a pattern, found number 42; this item was ignored',
      },
    ]);
    expect(written(item.rule?.enforce)?.forbid).toEqual(["eval("]);
  });

  test(`more than ${MAX_PATTERNS_PER_RULE} patterns: the first ${MAX_PATTERNS_PER_RULE} are used`, () => {
    const items = Array.from({ length: 55 }, (_, i) => `  - word${i}`).join("\n");
    const { rule, warnings } = parse(`---\nforbid:\n${items}\n---\nBody`);
    expect(rule?.enforce?.forbid).toHaveLength(MAX_PATTERNS_PER_RULE);
    expect(rule?.enforce?.forbid.at(-1)?.written).toBe("word49");
    expect(warnings).toEqual([
      {
        path: PATH,
        line: 2,
        message:
          'front matter key "forbid" lists 55 patterns, more than 50; the first 50 are used, the other 5 were not loaded',
      },
    ]);
  });

  test("a very long pattern is quoted short", () => {
    const long = "x".repeat(600);
    const { warnings } = parse(`---\nforbid: ${long}\n---\nBody`);
    expect(warnings).toEqual([
      {
        path: PATH,
        line: 2,
        message: `forbidden pattern "${"x".repeat(79)}…" in "forbid" is 600 characters long, more than 500; this pattern was ignored`,
      },
    ]);
  });

  test("these are errors, for `check`: the rule holds less than its author wrote", () => {
    const { warnings } = parsed("---\nforbid: /(?<=a)b/\n---\nBody");
    expect(warnings.map((w) => [w.code, w.severity])).toEqual([["forbid-pattern-unusable", "error"]]);
  });
});

describe("enforce", () => {
  test("a value other than block or warn blocks, with a warning", () => {
    const { rule, warnings } = parse("---\nforbid: x\nenforce: stop\n---\nBody");
    expect(rule?.enforce?.mode).toBe("block");
    expect(warnings).toEqual([
      {
        path: PATH,
        line: 3,
        message: 'front matter key "enforce" should be "block" or "warn", found string "stop"; "block" used',
      },
    ]);
  });

  test("enforce without a usable pattern enforces nothing, and says so", () => {
    const alone = parse("---\nenforce: warn\n---\nBody");
    expect(alone.rule?.enforce).toBeUndefined();
    const WITHOUT =
      'front matter key "enforce" is set but the rule has no usable "forbid" or "forbidCommands" pattern; nothing is enforced';
    expect(alone.warnings).toEqual([{ path: PATH, line: 2, message: WITHOUT }]);
    const unusable = parse("---\nforbid: //\nenforce: block\n---\nBody");
    expect(unusable.rule?.enforce).toBeUndefined();
    expect(unusable.warnings.map((w) => w.message)).toEqual([
      'forbidden pattern "//" in "forbid" is an empty regular expression, which matches everywhere; this pattern was ignored',
      WITHOUT,
    ]);
  });
});

describe("only this plugin's own folders may forbid", () => {
  const data = { forbid: ["x"], forbidCommands: "rm -rf", enforce: "warn" };
  const text = "---\nforbid:\n  - x\nforbidCommands: rm -rf\nenforce: warn\n---\nBody";

  test.each(["native", "extra"])("%s: read", (source) => {
    expect(written(readEnforcement(data, { path: PATH, source, text }).enforce)).toEqual({
      mode: "warn",
      forbid: ["x"],
      forbidCommands: ["rm -rf"],
    });
  });

  test("another tool's file: each key ignored, with a warning on its line naming the tool", () => {
    const read = readEnforcement(data, { path: "/p/.cursor/rules/r.mdc", source: "cursor", text });
    expect(read.enforce).toBeUndefined();
    expect(read.warnings.map((w) => [w.code, w.severity, w.line, "key" in w && w.key])).toEqual([
      ["enforcement-ignored-by-tool", "warning", 2, "forbid"],
      ["enforcement-ignored-by-tool", "warning", 4, "forbidCommands"],
      ["enforcement-ignored-by-tool", "warning", 5, "enforce"],
    ]);
  });
});
