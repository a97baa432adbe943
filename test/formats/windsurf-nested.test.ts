/**
 * Windsurf's `.windsurf/rules` below the project root, found and scoped like
 * Cursor's nested folders: from the root (nested search) and as a level
 * above the directory; its sub-folders; its rule types; hot reload.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createLogger } from "../../src/log.js";
import type { Rule } from "../../src/rule/rule.js";
import { activeRulesAmong } from "../../src/select/active.js";
import { activationOf } from "../../src/select/rule-set.js";
import { startLiveRules } from "../../src/formats/live-rules.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));

const API_RULES = {
  "services/api/.windsurf/rules/python.md": "---\ntrigger: glob\nglobs: *.py\n---\nPython in the API.",
  "services/api/.windsurf/rules/always.md": "---\ntrigger: always_on\n---\nAlways in the API.",
  "services/api/.windsurf/rules/schema.md":
    "---\ntrigger: model_decision\ndescription: When touching the schema\n---\nSchema.",
  "services/api/.windsurf/rules/by-hand.md": "---\ntrigger: manual\n---\nBy hand.",
  "services/api/.windsurf/rules/db/migrations.md": "---\ntrigger: glob\nglobs: migrations/**\n---\nMigrations.",
  ".windsurf/rules/root-python.md": "---\ntrigger: glob\nglobs: *.py\n---\nPython anywhere.",
};

/** The names of the rules that apply when the session works on `files`. */
const activeFor = (rules: readonly Rule[], files: string[]) =>
  activeRulesAmong(rules, { files }).map((active) => active.rule.name);

const summary = (rule: Rule) => [rule.name, rule.toolType, activationOf(rule), globsOf(rule), rule.description ?? null];
const SCOPED = [
  ["root-python", "glob", "conditional", ["*.py"], null],
  ["services/api/always", "always_on", "conditional", ["services/api/**"], null],
  ["services/api/by-hand", "manual", "manual", [], null],
  ["services/api/db/migrations", "glob", "conditional", ["services/api/migrations/**"], null],
  ["services/api/python", "glob", "conditional", ["services/api/**/*.py"], null],
  ["services/api/schema", "model_decision", "conditional", ["services/api/**"], "When touching the schema"],
];

describe("nested .windsurf/rules", () => {
  test("from the project root: found, named and scoped to their folder (sub-folders too)", async () => {
    await box.write(box.project, API_RULES);
    const { rules, warnings } = await loadSource(box, "windsurf");
    expect(warnings).toEqual([]);
    expect(rules.map(summary)).toEqual(SCOPED);
    expect(activeFor(rules, ["services/api/app/main.py"])).toEqual([
      "root-python",
      "services/api/always",
      "services/api/python",
      "services/api/schema",
    ]);
    expect(activeFor(rules, ["scripts/tool.py"])).toEqual(["root-python"]);
  });

  test("OpenCode's directory services/api inside the worktree: the level's rules are scoped to it, the root's are not", async () => {
    await box.write(box.project, API_RULES);
    const { rules, warnings } = await loadSource(box, "windsurf", { directory: join(box.project, "services/api") });
    expect(warnings).toEqual([]);
    expect(rules.map(summary)).toEqual(SCOPED);
    expect(activeFor(rules, ["scripts/tool.py"])).toEqual(["root-python"]);
    expect(activeFor(rules, ["services/api/app/main.py"])).toContain("services/api/python");
  });

  test("the rule type is the trigger as written; the single files are always_on; without a trigger, manual", async () => {
    await box.write(join(box.project, ".windsurf/rules"), {
      "plain.md": "No trigger: Windsurf applies it by no mode.",
      "odd.md": "---\ntrigger: sometimes\n---\nO",
    });
    await box.write(box.project, { ".windsurfrules": "Legacy." });
    await box.write(join(box.home, ".codeium/windsurf/memories"), { "global_rules.md": "Global." });
    const { rules } = await loadSource(box, "windsurf");
    expect(rules.map((rule) => [rule.name, rule.toolType, activationOf(rule)])).toEqual([
      ["global_rules", "always_on", "always"],
      ["odd", "sometimes", "manual"],
      ["plain", "no trigger", "manual"],
      ["windsurfrules", "always_on", "always"],
    ]);
  });
});

describe("nested rules folders hot-reload", () => {
  const quiet = createLogger(async () => undefined, false);
  /** fs.watch reports asynchronously; a reload happens at the next refresh after that. */
  const watcherLatency = () => new Promise((resolve) => setTimeout(resolve, 150));

  test("a rule added to a nested .windsurf/rules or .cursor/rules folder is loaded at the next refresh", async () => {
    await box.write(box.project, { "services/api/.windsurf/rules/a.md": "A.", "apps/web/.cursor/rules/c.mdc": "C." });
    const live = await startLiveRules(box.context(), { sources: ["windsurf", "cursor"] }, quiet);
    try {
      expect(live.current().rules.map((rule) => rule.name)).toEqual(["apps/web/c", "services/api/a"]);
      await writeFile(join(box.project, "services/api/.windsurf/rules/b.md"), "B.");
      await writeFile(join(box.project, "apps/web/.cursor/rules/d.mdc"), "D.");
      await watcherLatency();
      expect(await live.refresh()).toEqual({ changed: [], removed: [] });
      expect(
        live
          .current()
          .rules.map((rule) => rule.name)
          .sort(),
      ).toEqual(["apps/web/c", "apps/web/d", "services/api/a", "services/api/b"]);
    } finally {
      live.close();
    }
  });
});
