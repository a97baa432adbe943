/**
 * Continue's rules, written from https://docs.continue.dev/customize/deep-dives/rules
 * and Continue's `shouldApplyRule`: where they are found, and `alwaysApply`,
 * `globs`, `regex` and `description` mapped to one rule shape.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { MapperWarn } from "../../src/discover/source.js";
import { continueType, mapContinueRule } from "../../src/formats/continue.js";
import { ruleWarning, type RuleWarning } from "../../src/rule/warnings.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

let box: Box;
useBox((made) => (box = made));

function collect(): { warn: MapperWarn; warnings: RuleWarning[] } {
  const warnings: RuleWarning[] = [];
  return { warnings, warn: (facts) => warnings.push(ruleWarning("/p/.continue/rules/x.md", facts)) };
}

describe("Continue: where rules are found", () => {
  test("~/.continue/rules is global, .continue/rules at every level and .continuerules at the root are the project's", async () => {
    const pkg = join(box.project, "packages", "app");
    await box.write(box.home, { ".continue/rules/mine.md": "---\nname: Mine\n---\nMine." });
    await box.write(box.project, {
      ".continue/rules/pirates-rule.md": "---\nname: Pirate rule\n---\n- Talk like a pirate.",
      ".continue/rules/sub/deep.md": "Deep.",
      ".continuerules": "Legacy.",
      "packages/app/.continue/rules/near.md": "Near.",
      "packages/app/.continuerules": "Not the root: not read.",
    });
    const { rules, warnings } = await loadSource(box, "continue", { directory: pkg });
    expect(warnings).toEqual([]);
    expect(rules.map((rule) => [rule.scope, rule.name, rule.displayPath, rule.toolType])).toEqual([
      ["global", "mine", "~/.continue/rules/mine.md", "always"],
      ["project", "continuerules", ".continuerules", "always"],
      ["project", "near", "packages/app/.continue/rules/near.md", "always"],
      ["project", "pirates-rule", ".continue/rules/pirates-rule.md", "always"],
      ["project", "sub/deep", ".continue/rules/sub/deep.md", "always"],
    ]);
  });

  test("a rule keeps its file's name: Continue's `name` is a display title", async () => {
    await box.write(join(box.project, ".continue/rules"), {
      "doc-standards.md": "---\nname: Documentation Standards\n---\nD",
    });
    const { rules } = await loadSource(box, "continue");
    expect(rules.map((rule) => [rule.name, rule.unknownKeys])).toEqual([["doc-standards", []]]);
  });

  test("an invokable file is a prompt, not a rule", async () => {
    await box.write(join(box.project, ".continue/rules"), {
      "prompt.md": "---\nname: P\ninvokable: true\n---\nDo it.",
    });
    const { rules, warnings } = await loadSource(box, "continue");
    expect([rules, warnings]).toEqual([[], []]);
  });
});

describe("Continue: alwaysApply, globs and description (the docs' examples)", () => {
  test("true / absent / false with and without globs and description", async () => {
    await box.write(join(box.project, ".continue/rules"), {
      "always.md": "---\nalwaysApply: true\nglobs: src/**\n---\nA",
      "default.md": "No front matter: always.",
      "typescript.md": '---\nname: TypeScript Best Practices\nglobs: ["**/*.ts", "**/*.tsx"]\n---\nT',
      "described.md": "---\nalwaysApply: false\ndescription: Database migrations\n---\nD",
      "manual.md": "---\nalwaysApply: false\n---\nM",
    });
    const { summaries, warnings } = await loadSource(box, "continue");
    expect(warnings).toEqual([]);
    expect(summaries).toEqual([
      { name: "always", mode: "always", globs: [], description: undefined },
      { name: "default", mode: "always", globs: [], description: undefined },
      { name: "described", mode: "on-request", globs: [], description: "Database migrations" },
      { name: "manual", mode: "manual", globs: [], description: undefined },
      { name: "typescript", mode: "conditional", globs: ["**/*.ts", "**/*.tsx"], description: undefined },
    ]);
  });

  test("alwaysApply: false with globs applies when they match, else on request by its description", () => {
    const { warn, warnings } = collect();
    const data = {
      name: "Documentation Standards",
      globs: "docs/**/*.{md,mdx}",
      alwaysApply: false,
      description: "Standards for docs",
    };
    expect(mapContinueRule(data, warn)).toEqual({
      globs: ["docs/**/*.{md,mdx}"],
      description: "Standards for docs",
      requestable: true,
    });
    expect(mapContinueRule({ globs: "docs/**", alwaysApply: false }, warn)).toEqual({ globs: ["docs/**"] });
    expect(mapContinueRule({ globs: "docs/**", description: "d" }, warn)).toEqual({
      globs: ["docs/**"],
      description: "d",
    });
    expect(warnings).toEqual([]);
  });
});

describe("Continue: regex → fileContains", () => {
  test("a regex or a list becomes /r/ content patterns; with globs both must hold (match: all)", () => {
    const { warn, warnings } = collect();
    expect(mapContinueRule({ regex: "^import .* from '.*';$" }, warn)).toEqual({
      fileContains: ["/^import .* from '.*';$/"],
    });
    expect(mapContinueRule({ regex: ["useEffect\\(", "a, b"] }, warn)).toEqual({
      fileContains: ["/useEffect\\(/", "/a, b/"],
    });
    expect(mapContinueRule({ globs: "**/*.tsx", regex: "useState" }, warn)).toEqual({
      globs: ["**/*.tsx"],
      fileContains: ["/useState/"],
      match: "all",
    });
    expect(mapContinueRule({ regex: "TODO", alwaysApply: false, description: "d" }, warn)).toEqual({
      fileContains: ["/TODO/"],
      description: "d",
      requestable: true,
    });
    expect(mapContinueRule({ regex: "TODO", alwaysApply: true }, warn)).toEqual({ alwaysApply: true });
    expect(warnings).toEqual([]);
  });

  test("a regex RE2 cannot run stays under regex (the common reader reports it with its line); the others still apply", () => {
    const { warn, warnings } = collect();
    expect(mapContinueRule({ regex: ["(?<=a)b", "TODO"] }, warn)).toEqual({
      fileContains: ["/TODO/"],
      regex: ["(?<=a)b"],
    });
    expect(warnings).toEqual([]);
  });

  test("no usable regex left: the condition never holds (as in Continue, whose invalid regex never matches)", () => {
    const { warn } = collect();
    expect(mapContinueRule({ globs: "**/*.ts", regex: "(?<=a)b" }, warn)).toEqual({
      regex: ["(?<=a)b"],
      alwaysApply: false,
    });
    expect(mapContinueRule({ regex: "(a)\\1", alwaysApply: false, description: "d" }, warn)).toEqual({
      regex: ["(a)\\1"],
      description: "d",
      alwaysApply: false,
    });
  });

  test("a regex that is neither text nor a list of text: a warning naming the key, and no condition", () => {
    const { warn, warnings } = collect();
    expect(mapContinueRule({ regex: { a: 1 }, description: "d" }, warn)).toEqual({ alwaysApply: false });
    expect(shown(warnings).map((warning) => warning.message)).toEqual([
      'front matter key "regex" should be a regular expression or a YAML list of regular expressions, found {"a":1}; the rule applies only when mentioned',
    ]);
  });

  test("in a file: the warning names the file and line; the rule is still listed", async () => {
    await box.write(join(box.project, ".continue/rules"), { "bad.md": "---\nregex: 7\n---\nB" });
    const { rules, warnings } = await loadSource(box, "continue");
    expect(rules.map((rule) => rule.name)).toEqual(["bad"]);
    expect(warnings.map((warning) => [warning.path, warning.line, warning.code])).toEqual([
      [join(box.project, ".continue/rules/bad.md"), 2, "activation-invalid"],
    ]);
  });

  test("the type list shows, from the front matter as written", () => {
    expect(continueType({ alwaysApply: true, globs: "x" })).toBe("always");
    expect(continueType({})).toBe("always");
    expect(continueType({ globs: "x" })).toBe("globs");
    expect(continueType({ regex: "x", alwaysApply: false })).toBe("regex");
    expect(continueType({ globs: ["x"], regex: ["y"] })).toBe("globs+regex");
    expect(continueType({ alwaysApply: false, description: "d" })).toBe("description");
    expect(continueType({ alwaysApply: false })).toBe("manual");
  });
});
