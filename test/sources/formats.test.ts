/**
 * Each format's files and front matter, mapped to one rule shape: real
 * temporary folders, one source at a time.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Rule } from "../../src/rule/rule.js";
import { activationOf } from "../../src/select/active.js";
import { mapApplyTo } from "../../src/sources/copilot.js";
import { prefixGlob, scopeToFolder } from "../../src/sources/cursor.js";
import { mapInclusion } from "../../src/sources/kiro.js";
import { mapTrigger } from "../../src/sources/windsurf.js";
import { type Box, makeBox } from "./helpers.js";

let box: Box;
beforeEach(async () => {
  box = await makeBox();
});
afterEach(() => box.cleanup());

const summary = (rule: Rule) => ({ name: rule.name, mode: activationOf(rule), globs: rule.globs, description: rule.description });
const loadOnly = async (source: string, overrides = {}) => {
  const loaded = await box.load({ sources: [source] }, overrides);
  return { ...loaded, summaries: loaded.rules.map(summary) };
};

describe("Cursor", () => {
  test("description, globs as a list, a string or comma-separated, alwaysApply; .mdc and .md; sub-folders", async () => {
    await box.write(join(box.project, ".cursor/rules"), {
      "list.mdc": "---\nglobs:\n  - src/**/*.ts\n  - lib/*.js\n---\nL",
      "string.mdc": "---\nglobs: src/**\n---\nS",
      "comma.mdc": "---\nglobs: *.ts, *.tsx,{a,b}/*.md\nalwaysApply: false\n---\nC",
      "always.md": "---\ndescription: Everywhere\nalwaysApply: true\nglobs: ignored/**\n---\nA",
      "requested.mdc": "---\ndescription: Ask me\nglobs:\nalwaysApply: false\n---\nR",
      "manual.mdc": "---\ndescription:\nglobs:\nalwaysApply: false\n---\nM",
      "plain.mdc": "No front matter.",
      "sub/inner.mdc": "---\nglobs: docs/**\n---\nI",
      "notes.txt": "not a rule",
    });
    const { summaries, warnings } = await loadOnly("cursor");
    expect(warnings).toEqual([]);
    expect(summaries).toEqual([
      { name: "always", mode: "always", globs: ["ignored/**"], description: "Everywhere" },
      { name: "comma", mode: "conditional", globs: ["*.ts", "*.tsx", "{a,b}/*.md"], description: undefined },
      { name: "list", mode: "conditional", globs: ["src/**/*.ts", "lib/*.js"], description: undefined },
      { name: "manual", mode: "manual", globs: [], description: undefined },
      { name: "plain", mode: "always", globs: [], description: undefined },
      { name: "requested", mode: "on-request", globs: [], description: "Ask me" },
      { name: "string", mode: "conditional", globs: ["src/**"], description: undefined },
      { name: "sub/inner", mode: "conditional", globs: ["docs/**"], description: undefined },
    ]);
  });

  test(".cursorrules is an always-on rule named cursorrules; ~/.cursor/rules is global", async () => {
    await box.write(box.project, { ".cursorrules": "Legacy rules." });
    await box.write(join(box.home, ".cursor/rules"), { "mine.mdc": "---\nalwaysApply: true\n---\nMine." });
    const { rules } = await loadOnly("cursor");
    expect(rules.map((rule) => [rule.scope, rule.name, activationOf(rule), rule.displayPath])).toEqual([
      ["global", "mine", "always", "~/.cursor/rules/mine.mdc"],
      ["project", "cursorrules", "always", ".cursorrules"],
    ]);
  });

  test("nested .cursor/rules and .cursorrules in sub-folders: prefixed names, globs under the folder, always and on request → the folder, manual stays", async () => {
    await box.write(box.project, {
      "packages/web/.cursor/rules/components.mdc": "---\nglobs: *.tsx, ./src/main.ts, /index.ts, !*.test.tsx\n---\nC",
      "packages/web/.cursor/rules/everywhere.mdc": "W",
      "packages/web/.cursor/rules/asked.mdc": "---\ndescription: Ask\nalwaysApply: false\n---\nA",
      "packages/web/.cursor/rules/by-hand.mdc": "---\ndescription:\nalwaysApply: false\n---\nH",
      "packages/web/.cursorrules": "Legacy in web.",
      "packages/web/node_modules/dep/.cursor/rules/dep.mdc": "Never read.",
      "packages/.hidden/.cursor/rules/hidden.mdc": "Never read.",
    });
    const { summaries } = await loadOnly("cursor");
    expect(summaries).toEqual([
      { name: "packages/web/asked", mode: "conditional", globs: ["packages/web/**"], description: "Ask" },
      { name: "packages/web/by-hand", mode: "manual", globs: [], description: undefined },
      { name: "packages/web/components", mode: "conditional", globs: ["packages/web/**/*.tsx", "packages/web/src/main.ts", "packages/web/index.ts", "!packages/web/**/*.test.tsx"], description: undefined },
      { name: "packages/web/cursorrules", mode: "conditional", globs: ["packages/web/**"], description: undefined },
      { name: "packages/web/everywhere", mode: "conditional", globs: ["packages/web/**"], description: undefined },
    ]);
  });

  test("scopeToFolder and prefixGlob", () => {
    expect(prefixGlob("*.ts", "a")).toBe("a/**/*.ts");
    expect(prefixGlob("**/*.ts", "a")).toBe("a/**/*.ts");
    expect(prefixGlob("src/*.ts", "a/b")).toBe("a/b/src/*.ts");
    expect(scopeToFolder({ alwaysApply: true, globs: "x/**" }, "p")).toEqual({ globs: ["p/**"] });
    expect(scopeToFolder({ keywords: ["deploy"] }, "p")).toEqual({ keywords: ["deploy"] });
    expect(scopeToFolder({ alwaysApply: false, description: "d" }, "p")).toEqual({ description: "d", globs: ["p/**"] });
    expect(scopeToFolder({ alwaysApply: false }, "p")).toEqual({ alwaysApply: false });
    // A malformed value is left for the common reader to report.
    expect(scopeToFolder({ globs: 42 }, "p")).toEqual({ globs: 42 });
  });
});

describe("Claude Code", () => {
  test("paths → files; without paths → always; ~/.claude/rules is global; CLAUDE.md is not read", async () => {
    await box.write(join(box.project, ".claude/rules"), {
      "api.md": "---\npaths:\n  - \"src/api/**/*.ts\"\n---\nA",
      "one-path.md": "---\npaths: src/**/*.tsx\n---\nO",
      "always.md": "Always.",
      "frontend/react.md": "---\npaths: [\"**/*.tsx\"]\n---\nR",
      "ignored.mdc": "Claude Code reads .md only.",
    });
    await box.write(box.project, { "CLAUDE.md": "Not a rule." });
    await box.write(join(box.home, ".claude/rules"), { "me.md": "Me." });
    const { rules } = await loadOnly("claude");
    expect(rules.map((rule) => [rule.scope, rule.name, activationOf(rule), rule.globs])).toEqual([
      ["global", "me", "always", []],
      ["project", "always", "always", []],
      ["project", "api", "conditional", ["src/api/**/*.ts"]],
      ["project", "frontend/react", "conditional", ["**/*.tsx"]],
      ["project", "one-path", "conditional", ["src/**/*.tsx"]],
    ]);
  });
});

describe("Windsurf", () => {
  test("trigger always_on / glob / model_decision / manual; .windsurfrules; global_rules.md", async () => {
    await box.write(join(box.project, ".windsurf/rules"), {
      "on.md": "---\ntrigger: always_on\nglobs: x/**\n---\nOn",
      "glob.md": "---\ntrigger: glob\nglobs: *.py, scripts/**\n---\nG",
      "model.md": "---\ntrigger: model_decision\ndescription: When touching the schema\nglobs: ignored/**\n---\nM",
      "manual.md": "---\ntrigger: manual\ndescription: Only on mention\n---\nMa",
      "none.md": "---\nglobs: lib/**\n---\nN",
      "nested/too-deep.md": "Windsurf reads the folder's top level only.",
    });
    await box.write(box.project, { ".windsurfrules": "Legacy." });
    await box.write(join(box.home, ".codeium/windsurf/memories"), { "global_rules.md": "Global." });
    const { rules, warnings } = await loadOnly("windsurf");
    expect(warnings).toEqual([]);
    expect(rules.map((rule) => [rule.scope, rule.name, activationOf(rule), rule.globs, rule.description ?? null])).toEqual([
      ["global", "global_rules", "always", [], null],
      ["project", "glob", "conditional", ["*.py", "scripts/**"], null],
      ["project", "manual", "manual", [], null],
      ["project", "model", "on-request", [], "When touching the schema"],
      ["project", "none", "conditional", ["lib/**"], null],
      ["project", "on", "always", [], null],
      ["project", "windsurfrules", "always", [], null],
    ]);
    expect(rules.every((rule) => rule.unknownKeys.length === 0)).toBe(true);
  });

  test("an unknown trigger, or glob without globs, fails closed: manual, with a warning naming the file", async () => {
    await box.write(join(box.project, ".windsurf/rules"), {
      "odd.md": "---\ntrigger: sometimes\n---\nO",
      "empty-glob.md": "---\ntrigger: glob\n---\nE",
    });
    const { rules, warnings } = await loadOnly("windsurf");
    expect(rules.map((rule) => [rule.name, activationOf(rule)])).toEqual([
      ["empty-glob", "manual"],
      ["odd", "manual"],
    ]);
    expect(warnings).toEqual([
      { path: join(box.project, ".windsurf/rules/empty-glob.md"), message: 'front matter says "trigger: glob" but gives no globs; the rule applies only when mentioned' },
      { path: join(box.project, ".windsurf/rules/odd.md"), message: 'front matter key "trigger" should be always_on, glob, model_decision or manual, found "sometimes"; the rule applies only when mentioned' },
    ]);
  });

  test("mapTrigger", () => {
    const warn = () => undefined;
    expect(mapTrigger({ trigger: "always_on" }, warn)).toEqual({ alwaysApply: true });
    expect(mapTrigger({ trigger: "glob", globs: "a/**", alwaysApply: true }, warn)).toEqual({ globs: "a/**" });
    expect(mapTrigger({ trigger: "model_decision", description: "d" }, warn)).toEqual({ description: "d", alwaysApply: false });
    expect(mapTrigger({ trigger: "manual", description: "d" }, warn)).toEqual({ alwaysApply: false });
    expect(mapTrigger({ priority: 3 }, warn)).toEqual({ priority: 3 });
  });
});

describe("Cline", () => {
  test("a .clinerules file is one always-on rule named clinerules", async () => {
    await box.write(box.project, { ".clinerules": "Plan first." });
    const { summaries } = await loadOnly("cline");
    expect(summaries).toEqual([{ name: "clinerules", mode: "always", globs: [], description: undefined }]);
  });

  test("a .clinerules folder: its .md files, paths → files", async () => {
    await box.write(join(box.project, ".clinerules"), { "db.md": "---\npaths: [\"src/db/**\"]\n---\nD", "style.md": "S" });
    const { summaries } = await loadOnly("cline");
    expect(summaries).toEqual([
      { name: "db", mode: "conditional", globs: ["src/db/**"], description: undefined },
      { name: "style", mode: "always", globs: [], description: undefined },
    ]);
  });

  test("the nearest .clinerules going up from the directory wins; the farther one is not read", async () => {
    const pkg = join(box.project, "packages", "app");
    await box.write(box.project, { ".clinerules": "Root.", "packages/.clinerules/near.md": "Nearer.", "packages/app/src/index.ts": "" });
    const { rules } = await loadOnly("cline", { directory: pkg });
    expect(rules.map((rule) => [rule.name, rule.content, rule.displayPath])).toEqual([["near", "Nearer.", "packages/.clinerules/near.md"]]);
  });
});

describe("GitHub Copilot", () => {
  test("copilot-instructions.md always; *.instructions.md by applyTo (** = always, none = on request or manual)", async () => {
    await box.write(join(box.project, ".github"), {
      "copilot-instructions.md": "Repo-wide.",
      "instructions/ts.instructions.md": "---\napplyTo: \"src/**/*.ts,test/**/*.ts\"\n---\nT",
      "instructions/all.instructions.md": "---\napplyTo: \"**/*\"\n---\nA",
      "instructions/described.instructions.md": "---\ndescription: Database migrations\n---\nD",
      "instructions/bare.instructions.md": "B",
      "instructions/deep/go.instructions.md": "---\napplyTo:\n  - \"**/*.go\"\n---\nG",
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
    expect(mapApplyTo({ applyTo: "**" })).toEqual({ alwaysApply: true });
    expect(mapApplyTo({ applyTo: ["src/**", "**"] })).toEqual({ alwaysApply: true });
    expect(mapApplyTo({ applyTo: "src/**" })).toEqual({ applyTo: "src/**" });
    expect(mapApplyTo({})).toEqual({ alwaysApply: false });
    expect(mapApplyTo({ applyTo: 7 })).toEqual({ applyTo: 7 });
  });

  test("a wrong applyTo type warns naming file, key and expected type, and skips the rule", async () => {
    await box.write(join(box.project, ".github/instructions"), { "bad.instructions.md": "---\napplyTo: 7\n---\nB" });
    const { rules, warnings } = await loadOnly("copilot");
    expect(rules).toEqual([]);
    expect(warnings).toEqual([
      {
        path: join(box.project, ".github/instructions/bad.instructions.md"),
        line: 2,
        message: 'front matter key "applyTo" should be a glob, a comma-separated list of globs, or a YAML list of globs, found number 7; rule "bad" skipped',
      },
    ]);
  });
});

describe("Kiro", () => {
  test("inclusion always / fileMatch / manual / auto / absent; ~/.kiro/steering is global", async () => {
    await box.write(join(box.project, ".kiro/steering"), {
      "always.md": "---\ninclusion: always\n---\nA",
      "match.md": "---\ninclusion: fileMatch\nfileMatchPattern: \"components/**/*.tsx\"\n---\nM",
      "match-list.md": "---\ninclusion: fileMatch\nfileMatchPattern: [\"**/*.ts\", \"**/*.tsx\"]\n---\nL",
      "manual.md": "---\ninclusion: manual\n---\nMa",
      "auto.md": "---\ninclusion: auto\nname: auto\ndescription: API design guidance\n---\nAu",
      "default.md": "No front matter: Kiro includes it always.",
      "sub/ignored.md": "Kiro reads the folder's top level only.",
    });
    await box.write(join(box.home, ".kiro/steering"), { "me.md": "---\ninclusion: always\n---\nMe" });
    const { rules, warnings } = await loadOnly("kiro");
    expect(warnings).toEqual([]);
    expect(rules.map((rule) => [rule.scope, rule.name, activationOf(rule), rule.globs, rule.description ?? null])).toEqual([
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
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    expect(mapInclusion({ inclusion: "often" }, warn)).toEqual({ alwaysApply: false });
    expect(mapInclusion({ inclusion: "fileMatch" }, warn)).toEqual({ alwaysApply: false });
    expect(mapInclusion({ inclusion: "manual", description: "d", fileMatchPattern: "x" }, warn)).toEqual({ alwaysApply: false });
    expect(warnings).toEqual([
      'front matter key "inclusion" should be always, fileMatch, manual or auto, found "often"; the rule applies only when mentioned',
      'front matter says "inclusion: fileMatch" but gives no fileMatchPattern; the rule applies only when mentioned',
    ]);
  });
});

describe("front matter keys, every format", () => {
  test("native keys work in any format: priority, keywords, match, enabled", async () => {
    await box.write(join(box.project, ".kiro/steering"), {
      "keyed.md": "---\ninclusion: fileMatch\nfileMatchPattern: \"src/**\"\nkeywords: deploy\nmatch: all\npriority: 90\n---\nK",
      "off.md": "---\nenabled: false\n---\nOff",
    });
    const { rules } = await loadOnly("kiro");
    expect(rules.map((rule) => [rule.name, rule.priority, rule.keywords, rule.match, rule.globs])).toEqual([["keyed", 90, ["deploy"], "all", ["src/**"]]]);
  });

  test("unknown keys are kept and reported once per file; a wrong type names file, key and expected type", async () => {
    await box.write(join(box.project, ".cursor/rules"), {
      "extra.mdc": "---\nauthor: me\ntags: [a, b]\nglobs: src/**\n---\nE",
      "typed.mdc": "---\npriority: high\n---\nT",
    });
    const { rules, warnings } = await loadOnly("cursor");
    expect(rules.find((rule) => rule.name === "extra")?.unknownKeys).toEqual(["author", "tags"]);
    expect(warnings).toEqual([
      { path: join(box.project, ".cursor/rules/extra.mdc"), message: 'front matter keys "author", "tags" are not used by opencode-rulebook; kept and ignored' },
      { path: join(box.project, ".cursor/rules/typed.mdc"), line: 2, message: 'front matter key "priority" should be a whole number from 1 to 100, found string "high"; default 50 used' },
    ]);
  });
});
