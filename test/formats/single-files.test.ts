/**
 * The legacy single files have no front matter in their tools
 * (`.cursorrules`, `.windsurfrules`, `global_rules.md`, a `.clinerules`
 * file, `.github/copilot-instructions.md`): the whole text is the rule and it
 * is always on, even when it opens with a YAML-looking `---` block, and
 * nothing in such a block changes when it applies.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));

/** A block that, read as front matter, would make the rule manual, narrow it to one agent, or fail to parse. */
const NARROWING = "---\nalwaysApply: false\nagents: plan\nglobs: docs/**\n---\n# Team rules\n\nUse pnpm.";
const BROKEN = "---\ntitle: Team: rules\nlist:\n\t- a\n\t- b\n---\nUse pnpm.";

const SINGLE_FILES = [
  { source: "cursor", name: "cursorrules", where: (box: Box) => join(box.project, ".cursorrules") },
  { source: "windsurf", name: "windsurfrules", where: (box: Box) => join(box.project, ".windsurfrules") },
  {
    source: "windsurf",
    name: "global_rules",
    where: (box: Box) => join(box.home, ".codeium/windsurf/memories/global_rules.md"),
  },
  { source: "cline", name: "clinerules", where: (box: Box) => join(box.project, ".clinerules") },
  {
    source: "copilot",
    name: "copilot-instructions",
    where: (box: Box) => join(box.project, ".github/copilot-instructions.md"),
  },
];

describe.each(SINGLE_FILES)("$source $name", ({ source, name, where }) => {
  test("a leading --- block is part of the rule text, and changes neither its mode nor its agents", async () => {
    const path = where(box);
    await box.write(join(path, ".."), { [path.split("/").pop() as string]: NARROWING });
    const { rules, warnings } = await loadSource(box, source);
    expect(warnings).toEqual([]);
    expect(
      rules.map((rule) => [rule.name, activationOf(rule), globsOf(rule), rule.conditions.agents, rule.content]),
    ).toEqual([[name, "always", [], undefined, NARROWING]]);
  });

  test("a block that is not valid YAML does not skip the file: its whole text is the rule, always on", async () => {
    const path = where(box);
    await box.write(join(path, ".."), { [path.split("/").pop() as string]: BROKEN });
    const { rules, warnings } = await loadSource(box, source);
    expect(warnings).toEqual([]);
    expect(rules.map((rule) => [rule.name, activationOf(rule), rule.content])).toEqual([[name, "always", BROKEN]]);
  });
});

test("the rule files beside them still read their front matter: .cursor/rules, .clinerules/, .github/instructions", async () => {
  await box.write(box.project, {
    ".cursor/rules/docs.mdc": "---\nglobs: docs/**\n---\nDocs.",
    ".github/instructions/docs.instructions.md": '---\napplyTo: "docs/**"\n---\nDocs.',
  });
  for (const source of ["cursor", "copilot"]) {
    const { summaries } = await loadSource(box, source);
    expect(summaries).toEqual([{ name: "docs", mode: "conditional", globs: ["docs/**"], description: undefined }]);
  }
});
