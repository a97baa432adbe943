/**
 * Which sources' rules may forbid: this plugin's own folders (`.opencode/rules`,
 * `extraDirs`) read `forbid`, `forbidCommands` and `enforce`; another tool's
 * rule file applies as it does in that tool, its keys ignored with a warning
 * on their line. One format of each mapper family: `globs` (Cursor,
 * Windsurf), `paths` (Claude Code, Cline), Copilot's `applyTo`, Kiro's
 * `inclusion`.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

let box: Box;
useBox((made) => (box = made));

/** The plugin's keys after a tool's own front matter: on lines 3, 4 and 5 of the file. */
const ENFORCED = "forbid: console.log(\nforbidCommands:\n  - /git\\s+push\\s+-f\\b/\nenforce: warn\n";

const ignored = (key: string, tool: string) =>
  `front matter key "${key}" is read only in opencode-rulebook's own rules folders (.opencode/rules, the global rules folder, extraDirs); ` +
  `in a ${tool} rule it is ignored, so the rule forbids nothing (move it to .opencode/rules to enforce it)`;

describe("another tool's rule: applies as in the tool, forbids nothing, says so on each key's line", () => {
  test.each([
    { source: "cursor", tool: "Cursor", file: ".cursor/rules/style.mdc", front: "globs: src/**" },
    { source: "windsurf", tool: "Windsurf", file: ".windsurf/rules/style.md", front: "trigger: glob\nglobs: src/**" },
    { source: "claude", tool: "Claude Code", file: ".claude/rules/style.md", front: "paths: src/**" },
    { source: "cline", tool: "Cline", file: ".clinerules/style.md", front: "paths: src/**" },
    {
      source: "copilot",
      tool: "GitHub Copilot",
      file: ".github/instructions/style.instructions.md",
      front: "applyTo: src/**",
    },
    {
      source: "kiro",
      tool: "Kiro",
      file: ".kiro/steering/style.md",
      front: "inclusion: fileMatch\nfileMatchPattern: src/**",
    },
    {
      source: "antigravity",
      tool: "Antigravity",
      file: ".agent/rules/style.md",
      front: "trigger: glob\nglobs: src/**",
    },
    { source: "continue", tool: "Continue", file: ".continue/rules/style.md", front: "globs: src/**" },
  ])("$tool", async ({ source, tool, file, front }) => {
    const frontLines = front.split("\n").length;
    await box.write(box.project, { [file]: `---\n${front}\n${ENFORCED}---\nKeep it clean.` });
    const { rules, warnings, summaries } = await loadSource(box, source);
    expect(summaries.map((rule) => [rule.mode, rule.globs])).toEqual([["conditional", ["src/**"]]]);
    expect(rules[0]?.enforce).toBeUndefined();
    const path = join(box.project, file);
    expect(shown(warnings)).toEqual([
      { path, line: frontLines + 2, message: ignored("forbid", tool) },
      { path, line: frontLines + 3, message: ignored("forbidCommands", tool) },
      { path, line: frontLines + 5, message: ignored("enforce", tool) },
    ]);
  });
});

describe("this plugin's own folders", () => {
  test(".opencode/rules and extraDirs read the keys, without a warning", async () => {
    const rule = `---\nglobs: src/**\n${ENFORCED}---\nKeep it clean.`;
    await box.write(box.project, { ".opencode/rules/native.md": rule, ".agents/rules/extra.md": rule });
    for (const [source, overrides] of [
      ["native", {}],
      ["extra", { extraDirs: [".agents/rules"] }],
    ] as const) {
      const { rules, warnings } = await loadSource(box, source, overrides);
      expect(warnings).toEqual([]);
      expect(
        rules.map((loaded) => [
          loaded.name,
          loaded.enforce?.mode,
          loaded.enforce?.forbid.map((p) => p.written),
          loaded.enforce?.forbidCommands.length,
        ]),
      ).toEqual([[source, "warn", ["console.log("], 1]]);
    }
  });
});
