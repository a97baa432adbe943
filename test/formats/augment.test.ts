/**
 * Augment's rules, written from https://docs.augmentcode.com/setup-augment/guidelines
 * and https://docs.augmentcode.com/cli/rules: where they are found and `type`.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));

describe("Augment", () => {
  test("type always_apply / manual / agent_requested / absent; sub-folders read", async () => {
    await box.write(join(box.project, ".augment/rules"), {
      "always.md": "---\ntype: always_apply\n---\nA",
      "manual.md": "---\ntype: manual\ndescription: not used\n---\nM",
      "auto.md": "---\ntype: agent_requested\ndescription: Database migrations\n---\nR",
      "default.md": "No front matter: always_apply, the documented default.",
      "backend/api.md": "---\ntype: always_apply\n---\nB",
    });
    const { rules, warnings } = await loadSource(box, "augment");
    expect(warnings).toEqual([]);
    expect(rules.map((rule) => [rule.name, activationOf(rule), rule.description ?? null, rule.toolType])).toEqual([
      ["always", "always", null, "always_apply"],
      ["auto", "on-request", "Database migrations", "agent_requested"],
      ["backend/api", "always", null, "always_apply"],
      ["default", "always", null, "always_apply"],
      ["manual", "manual", null, "manual"],
    ]);
  });

  test("user rules in ~/.augment/rules are always applied whatever their type; legacy guidelines files are always on", async () => {
    await box.write(join(box.home, ".augment/rules"), { "mine.md": "---\ntype: manual\n---\nMine" });
    await box.write(box.project, { ".augment-guidelines": "Legacy.", "packages/.augment-guidelines": "Not the root." });
    const { rules } = await loadSource(box, "augment");
    expect(rules.map((rule) => [rule.scope, rule.name, activationOf(rule), rule.displayPath])).toEqual([
      ["global", "mine", "always", "~/.augment/rules/mine.md"],
      ["project", "augment-guidelines", "always", ".augment-guidelines"],
    ]);
  });

  test(".augment/guidelines.md is the same legacy file: shadowed by .augment-guidelines when both exist", async () => {
    await box.write(box.project, { ".augment-guidelines": "Old.", ".augment/guidelines.md": "Also old." });
    const { rules, shadowed } = await loadSource(box, "augment");
    expect(rules.map((rule) => rule.displayPath)).toEqual([".augment-guidelines"]);
    expect(shadowed.map((entry) => entry.rule.displayPath)).toEqual([".augment/guidelines.md"]);
  });

  test("rules at a nested project level are read too", async () => {
    await box.write(box.project, { "packages/app/.augment/rules/near.md": "Near." });
    const { rules } = await loadSource(box, "augment", { directory: join(box.project, "packages/app") });
    expect(rules.map((rule) => rule.displayPath)).toEqual(["packages/app/.augment/rules/near.md"]);
  });

  test("agent_requested without a description, an unknown type, another tool's key: manual or ignored, with file and line", async () => {
    await box.write(join(box.project, ".augment/rules"), {
      "nodesc.md": "---\ntype: agent_requested\n---\nN",
      "odd.md": "---\ndescription: d\ntype: sometimes\n---\nO",
      "globbed.md": "---\ntype: always_apply\nglobs: src/**\n---\nG",
    });
    const { rules, warnings } = await loadSource(box, "augment");
    expect(rules.map((rule) => [rule.name, activationOf(rule), globsOf(rule)])).toEqual([
      ["globbed", "always", []],
      ["nodesc", "manual", []],
      ["odd", "manual", []],
    ]);
    const file = (name: string) => join(box.project, ".augment/rules", name);
    expect(shown(warnings)).toEqual([
      {
        path: file("globbed.md"),
        line: 3,
        message: 'Augment does not read front matter key "globs" (it reads "type"); ignored here too, as in Augment',
      },
      {
        path: file("nodesc.md"),
        line: 2,
        message:
          'front matter says "type: agent_requested" but has no description; the rule applies only when mentioned',
      },
      {
        path: file("odd.md"),
        line: 3,
        message:
          'front matter key "type" should be always_apply, manual, agent_requested or auto, found "sometimes"; the rule applies only when mentioned',
      },
    ]);
  });

  // The IDE's third type, "Auto: Agent will automatically detect and attach rules based on a description field"
  // (https://docs.augmentcode.com/setup-augment/guidelines); the files it writes say `type: "auto"`.
  test('type "auto" (quoted or not) is agent_requested: on request by its description, and list shows "auto"', async () => {
    await box.write(join(box.project, ".augment/rules"), {
      "quoted.md":
        '---\ntype: "auto"\ndescription: "Database migrations and schema changes"\n---\nUse expand/contract.',
      "plain.md": "---\ntype: auto\ndescription: Writing tests\n---\nOne behaviour per test.",
    });
    const { rules, warnings } = await loadSource(box, "augment");
    expect(warnings).toEqual([]);
    expect(rules.map((rule) => [rule.name, activationOf(rule), rule.description ?? null, rule.toolType])).toEqual([
      ["plain", "on-request", "Writing tests", "auto"],
      ["quoted", "on-request", "Database migrations and schema changes", "auto"],
    ]);
  });

  test('type "auto" without a description: manual with a warning, as agent_requested; a type that is not a name has no label', async () => {
    await box.write(join(box.project, ".augment/rules"), {
      "nodesc.md": '---\ntype: "auto"\n---\nN',
      "number.md": "---\ntype: 5\ndescription: d\n---\nF",
    });
    const { rules, warnings } = await loadSource(box, "augment");
    expect(rules.map((rule) => [rule.name, activationOf(rule), rule.toolType ?? null])).toEqual([
      ["nodesc", "manual", "auto"],
      ["number", "manual", null],
    ]);
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".augment/rules/nodesc.md"),
        line: 2,
        message: 'front matter says "type: auto" but has no description; the rule applies only when mentioned',
      },
      {
        path: join(box.project, ".augment/rules/number.md"),
        line: 2,
        message:
          'front matter key "type" should be always_apply, manual, agent_requested or auto, found 5; the rule applies only when mentioned',
      },
    ]);
  });
});
