/**
 * `remove <name>`: deletes a rule's file. On a terminal it asks first;
 * otherwise it needs `--yes`, so a script never deletes by accident.
 */
import { promises as fs } from "node:fs";
import type { LoadedRules } from "../formats/load.js";
import type { FoundRuleFile } from "../discover/source.js";
import { result, shownPath, type CliIo, type CommandResult, type ProjectContext } from "./context.js";

interface RemoveOptions {
  yes?: boolean;
  global?: boolean;
}

/** The rule file named `name` (skipped and disabled ones included): project before global unless `--global`. */
function findRuleFile(
  loaded: LoadedRules,
  name: string,
  global?: boolean,
): { file?: FoundRuleFile; ambiguous: FoundRuleFile[] } {
  const bare = name.replace(/\.(md|mdc)$/i, "");
  const named = loaded.files.filter((file) => file.name === bare);
  const scoped = global
    ? named.filter((file) => file.scope === "global")
    : named.some((file) => file.scope === "project")
      ? named.filter((file) => file.scope === "project")
      : named;
  return scoped.length === 1 ? { file: scoped[0], ambiguous: [] } : { ambiguous: scoped };
}

export async function removeCommand(
  project: ProjectContext,
  loaded: LoadedRules,
  name: string,
  options: RemoveOptions,
  io: Pick<CliIo, "stdinIsTTY" | "confirm">,
): Promise<CommandResult> {
  const { file, ambiguous } = findRuleFile(loaded, name, options.global);
  if (!file) {
    if (ambiguous.length > 1) {
      return result(
        "",
        `Several rule files are named "${name}":\n${ambiguous.map((found) => `  ${shownPath(project, found.path)}`).join("\n")}\nDelete the one you mean by hand.\n`,
        1,
      );
    }
    const names = [...new Set(loaded.files.map((found) => found.name))].sort();
    return result(
      "",
      `No ${options.global ? "global " : ""}rule named "${name}".${names.length > 0 ? ` Rules: ${names.join(", ")}` : ""}\n`,
      1,
    );
  }
  const shown = shownPath(project, file.path);
  if (!options.yes) {
    if (!io.stdinIsTTY)
      return result(
        "",
        `Not deleting ${shown} without confirmation: stdin is not a terminal. Run again with --yes to delete it.\n`,
        1,
      );
    if (!(await io.confirm(`Delete ${shown} (rule "${file.name}")? [y/N] `)))
      return result("", "Nothing deleted.\n", 1);
  }
  await fs.unlink(file.path);
  return result(`Deleted ${shown} (rule "${file.name}")\n`);
}
