/**
 * Amazon Q Developer's project rules
 * (https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/context-project-rules.html)
 * and Zed's `.rules` (https://zed.dev/docs/ai/rules): always on.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));

describe("Amazon Q Developer", () => {
  test(".amazonq/rules/**/*.md at every project level, always on; no user folder", async () => {
    await box.write(box.project, {
      ".amazonq/rules/coding-standards.md": "Use strict mode.",
      ".amazonq/rules/memory-bank/tech.md": "Node 22.",
      "packages/app/.amazonq/rules/near.md": "Near.",
    });
    await box.write(box.home, { ".amazonq/rules/mine.md": "Not a documented place." });
    const { rules, warnings } = await loadSource(box, "amazonq", { directory: join(box.project, "packages/app") });
    expect(warnings).toEqual([]);
    expect(rules.map((rule) => [rule.scope, rule.name, activationOf(rule), rule.toolType])).toEqual([
      ["project", "coding-standards", "always", "always"],
      ["project", "memory-bank/tech", "always", "always"],
      ["project", "near", "always", "always"],
    ]);
  });

  test("another tool's scoping key is ignored, with file and line: the rule stays always on", async () => {
    await box.write(join(box.project, ".amazonq/rules"), {
      "ts.md": "---\ndescription: TypeScript\nglobs: src/**\n---\nT",
    });
    const { rules, warnings } = await loadSource(box, "amazonq");
    expect(rules.map((rule) => [rule.name, activationOf(rule), globsOf(rule)])).toEqual([["ts", "always", []]]);
    expect(shown(warnings).map((warning) => [warning.line, warning.message])).toEqual([
      [
        3,
        'Amazon Q Developer does not read front matter key "globs" (it reads "the rule\'s text only"); ignored here too, as in Amazon Q Developer',
      ],
      [
        2,
        'Amazon Q Developer does not read front matter key "description" (it reads "the rule\'s text only"); ignored here too, as in Amazon Q Developer',
      ],
    ]);
  });
});

describe("Zed", () => {
  test(".rules at the project root is always on; Zed's fallback files stay with their own sources", async () => {
    await box.write(box.project, {
      ".rules": "Prefer small commits.",
      ".cursorrules": "Cursor's.",
      "packages/app/.rules": "Not the root.",
    });
    const zed = await loadSource(box, "zed", { directory: join(box.project, "packages/app") });
    expect(zed.rules.map((rule) => [rule.name, activationOf(rule), rule.displayPath])).toEqual([
      ["rules", "always", ".rules"],
    ]);
    const all = await box.load({ sources: ["zed", "cursor"] });
    expect(all.rules.map((rule) => [rule.source, rule.displayPath])).toEqual([
      ["cursor", ".cursorrules"],
      ["zed", ".rules"],
    ]);
  });

  test(".rules has no front matter in Zed: a --- block at its top is part of the rule, which stays always on", async () => {
    await box.write(box.project, { ".rules": "---\nalwaysApply: false\nglobs: src/**\n---\nPrefer small commits." });
    const { rules, warnings } = await loadSource(box, "zed");
    expect(rules.map((rule) => [activationOf(rule), globsOf(rule), rule.content])).toEqual([
      ["always", [], "---\nalwaysApply: false\nglobs: src/**\n---\nPrefer small commits."],
    ]);
    expect(warnings).toEqual([]);
  });
});
