/** `init`: creates the project's `.opencode/rules/` with one commented example, and says how to enable the plugin. */
import { existsSync, promises as fs } from "node:fs";
import { join } from "node:path";
import { result, shownPath, type CommandResult, type ProjectContext } from "./context.js";

const EXAMPLE_RULE = `---
# An example rule written by \`opencode-rulebook init\`. Every .md file in this
# folder is a rule; its name is the file name without .md.
#
# Without conditions a rule is delivered to every session. Conditions:
#   globs: ["src/**/*.ts"]        delivered when the session touches a matching file
#   keywords: [database, sql]     delivered when the prompt contains one of these words
#   alwaysApply: false            with a description and no condition: listed, read on request
#   priority: 50                  1-100; higher comes first and is left out last
# Any rule is also delivered when the prompt mentions it as @name.
#
# This example is switched off. Write your rule below, then delete this line:
enabled: false
description: An example rule; replace it with one of your project's own
---
Use the project's own scripts (see package.json) to build and test; never run a
global tool in their place.
`;

const ENABLE_SNIPPET = `{
  "$schema": "https://opencode.ai/config.json",
  "plugin": ["opencode-rulebook"]
}`;

export async function initCommand(project: ProjectContext): Promise<CommandResult> {
  const folder = join(project.projectRoot, ".opencode", "rules");
  const example = join(folder, "example.md");
  const lines: string[] = [];
  const existed = existsSync(folder);
  await fs.mkdir(folder, { recursive: true });
  lines.push(existed ? `${shownPath(project, folder)}/ already exists.` : `Created ${shownPath(project, folder)}/`);
  try {
    await fs.writeFile(example, EXAMPLE_RULE, { flag: "wx" });
    lines.push(
      `Created ${shownPath(project, example)}: a commented example, switched off (enabled: false) until you edit it.`,
    );
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
    lines.push(`${shownPath(project, example)} already exists; left as it is.`);
  }
  lines.push("");
  if (project.configPath) {
    lines.push(`The plugin is enabled in ${shownPath(project, project.configPath)}.`);
  } else {
    lines.push(
      "Enable the plugin in opencode.json at the project root (or ~/.config/opencode/opencode.json for every project):",
    );
    lines.push(ENABLE_SNIPPET);
  }
  lines.push(
    "",
    'Then add rules with `opencode-rulebook add "rule text"`, and see them with `opencode-rulebook list`.',
  );
  return result(`${lines.join("\n")}\n`);
}
