/**
 * Each format's files and front matter, mapped to one rule shape: real
 * temporary folders, one source at a time. Cline, GitHub Copilot, Kiro, and
 * the keys every format shares (the others: formats.test.ts).
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ruleWarning, type RuleWarning } from "../../src/rule/warnings.js";
import { activationOf } from "../../src/select/rule-set.js";
import { mapApplyTo } from "../../src/formats/copilot.js";
import { mapInclusion } from "../../src/formats/kiro.js";
import type { MapperWarn } from "../../src/discover/source.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));
const loadOnly = (source: string, overrides = {}) => loadSource(box, source, overrides);
const NO_FRONT = { present: true, body: "", lineOf: () => undefined };

describe("Cline", () => {
  test("a .clinerules file is one always-on rule named clinerules", async () => {
    await box.write(box.project, { ".clinerules": "Plan first." });
    const { summaries } = await loadOnly("cline");
    expect(summaries).toEqual([{ name: "clinerules", mode: "always", globs: [], description: undefined }]);
  });

  test("a .clinerules folder: its .md files, paths → files", async () => {
    await box.write(join(box.project, ".clinerules"), {
      "db.md": '---\npaths: ["src/db/**"]\n---\nD',
      "style.md": "S",
    });
    const { summaries } = await loadOnly("cline");
    expect(summaries).toEqual([
      { name: "db", mode: "conditional", globs: ["src/db/**"], description: undefined },
      { name: "style", mode: "always", globs: [], description: undefined },
    ]);
  });

  test("the nearest .clinerules going up from the directory wins; the farther one is not read", async () => {
    const pkg = join(box.project, "packages", "app");
    await box.write(box.project, {
      ".clinerules": "Root.",
      "packages/.clinerules/near.md": "Nearer.",
      "packages/app/src/index.ts": "",
    });
    const { rules } = await loadOnly("cline", { directory: pkg });
    expect(rules.map((rule) => [rule.name, rule.content, rule.displayPath])).toEqual([
      ["near", "Nearer.", "packages/.clinerules/near.md"],
    ]);
  });
});

describe("GitHub Copilot", () => {
  test("copilot-instructions.md always; *.instructions.md by applyTo (** = always, none = on request or manual)", async () => {
    await box.write(join(box.project, ".github"), {
      "copilot-instructions.md": "Repo-wide.",
      "instructions/ts.instructions.md": '---\napplyTo: "src/**/*.ts,test/**/*.ts"\n---\nT',
      "instructions/all.instructions.md": '---\napplyTo: "**/*"\n---\nA',
      "instructions/described.instructions.md": "---\ndescription: Database migrations\n---\nD",
      "instructions/bare.instructions.md": "B",
      "instructions/deep/go.instructions.md": '---\napplyTo:\n  - "**/*.go"\n---\nG',
      "instructions/readme.md": "Not an instructions file.",
    });
    const { summaries, warnings } = await loadOnly("copilot");
    expect(warnings).toEqual([]);
    expect(summaries).toEqual([
      { name: "all", mode: "always", globs: [], description: undefined },
      { name: "bare", mode: "manual", globs: [], description: undefined },
      { name: "copilot-instructions", mode: "always", globs: [], description: undefined },
      { name: "deep/go", mode: "conditional", globs: ["**/*.go"], description: undefined },
      { name: "described", mode: "on-request", globs: [], description: "Database migrations" },
      { name: "ts", mode: "conditional", globs: ["src/**/*.ts", "test/**/*.ts"], description: undefined },
    ]);
  });

  test("mapApplyTo", () => {
    const warnings: RuleWarning[] = [];
    const map = (data: Record<string, unknown>) =>
      mapApplyTo(data, (facts) => warnings.push(ruleWarning("/p/x.instructions.md", facts)), NO_FRONT);
    expect(map({ applyTo: "**" })).toEqual({ alwaysApply: true });
    expect(map({ applyTo: ["src/**", "**"] })).toEqual({ alwaysApply: true });
    expect(map({ applyTo: "src/**" })).toEqual({ applyTo: "src/**" });
    expect(map({})).toEqual({ alwaysApply: false });
    expect(map({ applyTo: 7 })).toEqual({ applyTo: 7 });
    expect(warnings).toEqual([]);
  });

  test("a wrong applyTo type warns naming file, key and expected type, and skips the rule", async () => {
    await box.write(join(box.project, ".github/instructions"), { "bad.instructions.md": "---\napplyTo: 7\n---\nB" });
    const { rules, warnings } = await loadOnly("copilot");
    expect(rules).toEqual([]);
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".github/instructions/bad.instructions.md"),
        line: 2,
        message:
          'front matter key "applyTo" should be a glob, a comma-separated list of globs, or a YAML list of globs, found number 7; rule "bad" skipped',
      },
    ]);
  });
});

describe("Kiro", () => {
  test("inclusion always / fileMatch / manual / auto / absent; ~/.kiro/steering is global", async () => {
    await box.write(join(box.project, ".kiro/steering"), {
      "always.md": "---\ninclusion: always\n---\nA",
      "match.md": '---\ninclusion: fileMatch\nfileMatchPattern: "components/**/*.tsx"\n---\nM',
      "match-list.md": '---\ninclusion: fileMatch\nfileMatchPattern: ["**/*.ts", "**/*.tsx"]\n---\nL',
      "manual.md": "---\ninclusion: manual\n---\nMa",
      "auto.md": "---\ninclusion: auto\nname: auto\ndescription: API design guidance\n---\nAu",
      "default.md": "No front matter: Kiro includes it always.",
      "sub/ignored.md": "Kiro reads the folder's top level only.",
    });
    await box.write(join(box.home, ".kiro/steering"), { "me.md": "---\ninclusion: always\n---\nMe" });
    const { rules, warnings } = await loadOnly("kiro");
    expect(warnings).toEqual([]);
    expect(
      rules.map((rule) => [rule.scope, rule.name, activationOf(rule), globsOf(rule), rule.description ?? null]),
    ).toEqual([
      ["global", "me", "always", [], null],
      ["project", "always", "always", [], null],
      ["project", "auto", "on-request", [], "API design guidance"],
      ["project", "default", "always", [], null],
      ["project", "manual", "manual", [], null],
      ["project", "match", "conditional", ["components/**/*.tsx"], null],
      ["project", "match-list", "conditional", ["**/*.ts", "**/*.tsx"], null],
    ]);
  });

  test("mapInclusion: unknown values and fileMatch without a pattern fail closed with a warning", () => {
    const warnings: RuleWarning[] = [];
    const warn: MapperWarn = (facts) => warnings.push(ruleWarning("/p/.kiro/steering/x.md", facts));
    expect(mapInclusion({ inclusion: "often" }, warn)).toEqual({ alwaysApply: false });
    expect(mapInclusion({ inclusion: "fileMatch" }, warn)).toEqual({ alwaysApply: false });
    expect(mapInclusion({ inclusion: "manual", description: "d", fileMatchPattern: "x" }, warn)).toEqual({
      alwaysApply: false,
    });
    expect(warnings.map((warning) => [warning.code, warning.severity])).toEqual([
      ["activation-invalid", "warning"],
      ["activation-incomplete", "warning"],
    ]);
    expect(shown(warnings).map((warning) => warning.message)).toEqual([
      'front matter key "inclusion" should be always, fileMatch, manual or auto, found "often"; the rule applies only when mentioned',
      'front matter says "inclusion: fileMatch" but gives no fileMatchPattern; the rule applies only when mentioned',
    ]);
  });
});

describe("front matter keys, every format", () => {
  test("native keys work in any format: priority, keywords, match, enabled", async () => {
    await box.write(join(box.project, ".kiro/steering"), {
      "keyed.md":
        '---\ninclusion: fileMatch\nfileMatchPattern: "src/**"\nkeywords: deploy\nmatch: all\npriority: 90\n---\nK',
      "off.md": "---\nenabled: false\n---\nOff",
    });
    const { rules } = await loadOnly("kiro");
    expect(
      rules.map((rule) => [rule.name, rule.priority, rule.conditions.keywords ?? [], rule.match, globsOf(rule)]),
    ).toEqual([["keyed", 90, ["deploy"], "all", ["src/**"]]]);
  });

  test("unknown keys are kept and reported once per file; a wrong type names file, key and expected type", async () => {
    await box.write(join(box.project, ".cursor/rules"), {
      "extra.mdc": "---\nauthor: me\ntags: [a, b]\nglobs: src/**\n---\nE",
      "typed.mdc": "---\npriority: high\n---\nT",
    });
    const { rules, warnings } = await loadOnly("cursor");
    expect(rules.find((rule) => rule.name === "extra")?.unknownKeys).toEqual(["author", "tags"]);
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".cursor/rules/extra.mdc"),
        message: 'front matter keys "author", "tags" are not used by opencode-rulebook; kept and ignored',
      },
      {
        path: join(box.project, ".cursor/rules/typed.mdc"),
        line: 2,
        message:
          'front matter key "priority" should be a whole number from 1 to 100, found string "high"; default 50 used',
      },
    ]);
  });
});
