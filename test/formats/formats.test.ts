/**
 * Each format's files and front matter, mapped to one rule shape: real
 * temporary folders, one source at a time. Cursor, Claude Code, Windsurf
 * (the others: formats-more.test.ts).
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { prefixGlob, scopeToFolder } from "../../src/formats/folder-scope.js";
import { mapTrigger } from "../../src/formats/windsurf.js";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));
const loadOnly = (source: string, overrides = {}) => loadSource(box, source, overrides);

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
      { name: "plain", mode: "manual", globs: [], description: undefined },
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

  test("nested .cursor/rules: prefixed names, globs under the folder, always and on request → the folder, manual stays; a nested .cursorrules is not a rule", async () => {
    await box.write(box.project, {
      "packages/web/.cursor/rules/components.mdc": "---\nglobs: *.tsx, ./src/main.ts, /index.ts, !*.test.tsx\n---\nC",
      "packages/web/.cursor/rules/everywhere.mdc": "---\nalwaysApply: true\n---\nW",
      "packages/web/.cursor/rules/asked.mdc": "---\ndescription: Ask\nalwaysApply: false\n---\nA",
      "packages/web/.cursor/rules/by-hand.mdc": "---\ndescription:\nalwaysApply: false\n---\nH",
      "packages/web/.cursor/rules/plain.mdc": "No front matter: manual.",
      "packages/web/.cursorrules": "Cursor reads .cursorrules at the project root only.",
      "packages/web/node_modules/dep/.cursor/rules/dep.mdc": "Never read.",
      "packages/.hidden/.cursor/rules/hidden.mdc": "Never read.",
    });
    const { summaries } = await loadOnly("cursor");
    expect(summaries).toEqual([
      { name: "packages/web/asked", mode: "conditional", globs: ["packages/web/**"], description: "Ask" },
      { name: "packages/web/by-hand", mode: "manual", globs: [], description: undefined },
      {
        name: "packages/web/components",
        mode: "conditional",
        globs: [
          "packages/web/**/*.tsx",
          "packages/web/src/main.ts",
          "packages/web/index.ts",
          "!packages/web/**/*.test.tsx",
        ],
        description: undefined,
      },
      { name: "packages/web/everywhere", mode: "conditional", globs: ["packages/web/**"], description: undefined },
      { name: "packages/web/plain", mode: "manual", globs: [], description: undefined },
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
      "api.md": '---\npaths:\n  - "src/api/**/*.ts"\n---\nA',
      "one-path.md": "---\npaths: src/**/*.tsx\n---\nO",
      "always.md": "Always.",
      "frontend/react.md": '---\npaths: ["**/*.tsx"]\n---\nR',
      "ignored.mdc": "Claude Code reads .md only.",
    });
    await box.write(box.project, { "CLAUDE.md": "Not a rule." });
    await box.write(join(box.home, ".claude/rules"), { "me.md": "Me." });
    const { rules } = await loadOnly("claude");
    expect(rules.map((rule) => [rule.scope, rule.name, activationOf(rule), globsOf(rule)])).toEqual([
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
      "sub/inner.md": "---\ntrigger: always_on\n---\nSub-folders are read.",
    });
    await box.write(box.project, { ".windsurfrules": "Legacy." });
    await box.write(join(box.home, ".codeium/windsurf/memories"), { "global_rules.md": "Global." });
    const { rules, warnings } = await loadOnly("windsurf");
    expect(
      rules.map((rule) => [rule.scope, rule.name, activationOf(rule), globsOf(rule), rule.description ?? null]),
    ).toEqual([
      ["global", "global_rules", "always", [], null],
      ["project", "glob", "conditional", ["*.py", "scripts/**"], null],
      ["project", "manual", "manual", [], null],
      ["project", "model", "on-request", [], "When touching the schema"],
      ["project", "none", "manual", [], null],
      ["project", "on", "always", [], null],
      ["project", "sub/inner", "always", [], null],
      ["project", "windsurfrules", "always", [], null],
    ]);
    // Without a trigger Windsurf applies a rule by no mode of its own: manual, saying so.
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".windsurf/rules/none.md"),
        message:
          'Windsurf applies a rule by its "trigger" (always_on, glob, model_decision or manual) and this one has none; the rule applies only when mentioned, as Windsurf does not apply it by itself',
      },
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
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".windsurf/rules/empty-glob.md"),
        message: 'front matter says "trigger: glob" but gives no globs; the rule applies only when mentioned',
      },
      {
        path: join(box.project, ".windsurf/rules/odd.md"),
        message:
          'front matter key "trigger" should be always_on, glob, model_decision or manual, found "sometimes"; the rule applies only when mentioned',
      },
    ]);
  });

  test("mapTrigger", () => {
    const warn = () => undefined;
    expect(mapTrigger({ trigger: "always_on" }, warn)).toEqual({ alwaysApply: true });
    expect(mapTrigger({ trigger: "glob", globs: "a/**", alwaysApply: true }, warn)).toEqual({ globs: "a/**" });
    expect(mapTrigger({ trigger: "model_decision", description: "d" }, warn)).toEqual({
      description: "d",
      alwaysApply: false,
    });
    expect(mapTrigger({ trigger: "manual", description: "d" }, warn)).toEqual({ alwaysApply: false });
    expect(mapTrigger({ priority: 3 }, warn)).toEqual({ priority: 3, alwaysApply: false });
    expect(
      mapTrigger({ trigger: "model_decision" }, warn, { name: "review", body: "# Code review\n\nTests first." }),
    ).toEqual({ alwaysApply: false, description: "Code review" });
  });
});
