/**
 * JetBrains: Junie's guidelines (https://www.jetbrains.com/help/junie/customize-guidelines.html)
 * and AI Assistant's project rules (https://www.jetbrains.com/help/ai-assistant/configure-project-rules.html),
 * with the rule type in the front matter the IDE writes.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));

describe("Junie", () => {
  test(".junie/guidelines.md at the project root is always on, whatever it begins with", async () => {
    await box.write(box.project, {
      ".junie/guidelines.md": "# Guidelines\nUse Gradle.",
      "packages/app/.junie/guidelines.md": "Not the root.",
    });
    const { rules, warnings } = await loadSource(box, "junie", { directory: join(box.project, "packages/app") });
    expect(warnings).toEqual([]);
    expect(rules.map((rule) => [rule.name, activationOf(rule), rule.displayPath, rule.toolType])).toEqual([
      ["junie-guidelines", "always", ".junie/guidelines.md", "always"],
    ]);
  });
});

describe("JetBrains AI Assistant", () => {
  test("apply: always / manually / by model decision / by file patterns / off / absent", async () => {
    await box.write(join(box.project, ".aiassistant/rules"), {
      "always.md": "---\napply: always\n---\nA",
      "manual.md": "---\napply: manually\n---\nM",
      "model.md": "---\napply: by model decision\ninstructions: Apply when working with Java files\n---\nJ",
      "patterns.md": '---\napply: by file patterns\npatterns: "*.kt, src/**"\n---\nK',
      "list.md": '---\napply: by file patterns\npatterns:\n  - "package.json"\n  - "*.config.*"\n---\nL',
      "off.md": "---\napply: off\n---\nO",
      "plain.md": "No front matter: added to each chat by default.",
      "sub/nested.md": "Rules are the folder's top level only.",
    });
    const { rules, warnings } = await loadSource(box, "aiassistant");
    expect(warnings).toEqual([]);
    expect(
      rules.map((rule) => [rule.name, activationOf(rule), globsOf(rule), rule.description ?? null, rule.toolType]),
    ).toEqual([
      ["always", "always", [], null, "always"],
      ["list", "conditional", ["package.json", "*.config.*"], null, "by file patterns"],
      ["manual", "manual", [], null, "manually"],
      ["model", "on-request", [], "Apply when working with Java files", "by model decision"],
      ["patterns", "conditional", ["*.kt", "src/**"], null, "by file patterns"],
      ["plain", "always", [], null, "always"],
    ]);
  });

  test("a type without what it needs, or an unknown one: manual, with file and line", async () => {
    await box.write(join(box.project, ".aiassistant/rules"), {
      "a.md": "---\napply: by model decision\n---\nA",
      "b.md": "---\napply: by file patterns\n---\nB",
      "c.md": "---\napply: sometimes\n---\nC",
    });
    const { rules, warnings } = await loadSource(box, "aiassistant");
    expect(rules.map((rule) => [rule.name, activationOf(rule)])).toEqual([
      ["a", "manual"],
      ["b", "manual"],
      ["c", "manual"],
    ]);
    const file = (name: string) => join(box.project, ".aiassistant/rules", name);
    expect(shown(warnings)).toEqual([
      {
        path: file("a.md"),
        line: 2,
        message:
          'front matter says "apply: by model decision" but has no description; the rule applies only when mentioned',
      },
      {
        path: file("b.md"),
        line: 2,
        message: 'front matter says "apply: by file patterns" but gives no globs; the rule applies only when mentioned',
      },
      {
        path: file("c.md"),
        line: 2,
        message:
          'front matter key "apply" should be always, manually, by model decision, by file patterns or off, found "sometimes"; the rule applies only when mentioned',
      },
    ]);
  });
});
