/**
 * `check`: validates every rule file for CI and pre-commit hooks.
 * Errors (exit 1): a rule file that was skipped (unreadable, invalid front
 * matter or types, over the size limit), a rules folder that was not read, or
 * a forbidden pattern (`forbid`, `forbidCommands`) that cannot be used.
 * Warnings (exit 0): defaults used for bad values, plugin options, globs that
 * match no file in the project or can never match one, keys the rule's own
 * tool ignores (`forbid` in another tool's rule among them), unknown front
 * matter keys, links to missing files (outside code), shadowed or duplicate
 * rules, rules over the message budget, names in `agents:` that no OpenCode
 * agent has.
 */
import { openCodeLogDir, rulebookLogFile } from "../log-file.js";
import { nodeRuleFs } from "../discover/fs.js";
import type { LoadedRules } from "../formats/load.js";
import { walkBudget } from "../discover/walk-limits.js";
import { walkProjectTree } from "../discover/walk.js";
import { shownText } from "../render/shown-text.js";
import { knownNotes, type ProjectFiles } from "./check-conditions.js";
import { findProblems } from "./check-problems.js";
import { result, shownPath, type CommandResult, type ProjectContext } from "./context.js";
import { plural, type Style } from "./format.js";
import type { KnownAgents } from "./known-agents.js";

interface CheckOptions {
  json?: boolean;
}

export const PROJECT_FILE_LIMIT = 50_000;

/**
 * The project's files, hidden ones and those in hidden folders too (where a
 * rule's globs match: `*.mdc` matches `.cursor/rules/a.mdc`), without
 * following symlinks or entering version control, dependency, build or cache
 * folders (`skippedInProjectTree`), up to `limit` files.
 */
export async function listProjectFiles(root: string, limit = PROJECT_FILE_LIMIT): Promise<ProjectFiles> {
  const files: string[] = [];
  let complete = true;
  const walk = await walkProjectTree(root, nodeRuleFs, {
    budget: walkBudget({ folders: limit, entries: Infinity, files: Infinity }),
    hiddenFolders: true,
    onFolder: (_dir, relPath, entries) => {
      for (const entry of entries) {
        if (entry.isDirectory()) continue;
        files.push(relPath === "" ? entry.name : `${relPath}/${entry.name}`);
        if (files.length >= limit) {
          complete = false;
          return false;
        }
      }
    },
  });
  // A folder past the walk's bounds holds files the list does not have.
  if (walk.warnings.some((warning) => warning.code === "walk-limit" || warning.code === "folder-too-deep"))
    complete = false;
  return { files, complete };
}

export function checkCommand(
  project: ProjectContext,
  loaded: LoadedRules,
  projectFiles: ProjectFiles,
  options: CheckOptions,
  style: Style,
  agents?: KnownAgents,
): CommandResult {
  const problems = findProblems(project, loaded, projectFiles, agents);
  const errors = problems.filter((problem) => problem.severity === "error").length;
  const warnings = problems.length - errors;
  const exitCode = errors > 0 ? 1 : 0;
  const notes = projectFiles.complete
    ? []
    : [`the project has more than ${PROJECT_FILE_LIMIT} files: globs were not checked against it`];
  notes.push(...knownNotes(loaded.rules, { "opencode-agents": agents }));

  // Where the plugin's own lines are: the warnings in full, and the debug lines when debug is on.
  const logFile = rulebookLogFile(project.env, project.home);
  // A pack's file is named by its pack (`@acme/rules@2.1.0/rules/x.md`), not by where the cache or node_modules keeps it.
  const packPaths = new Map(
    [...loaded.rules, ...loaded.shadowed.map(({ rule }) => rule)].flatMap((rule) =>
      rule.pack ? [[rule.path, rule.displayPath] as const] : [],
    ),
  );
  const where = (path: string) => packPaths.get(path) ?? shownPath(project, path);
  if (options.json) {
    const json = {
      ok: errors === 0,
      errors,
      warnings,
      filesChecked: loaded.files.length,
      rules: loaded.rules.length,
      problems: problems.map((problem) => ({
        ...problem,
        line: problem.line ?? null,
        rule: problem.rule ?? null,
        displayPath: where(problem.path),
      })),
      notes,
      logFile,
    };
    return result(`${JSON.stringify(json, null, 2)}\n`, "", exitCode);
  }

  const lines: string[] = [];
  for (const problem of problems) {
    const label = problem.severity === "error" ? style.red("error  ") : style.yellow("warning");
    // Paths and messages name the repository's files: control characters shown as `?` (`--json` keeps them exact).
    lines.push(
      `${label} ${shownText(`${where(problem.path)}${problem.line ? `:${problem.line}` : ""}: ${problem.message}`)}`,
    );
  }
  for (const note of notes) lines.push(`${style.dim("note   ")} ${shownText(note)}`);
  if (lines.length > 0) lines.push("");
  const summary = `${plural(loaded.files.length, "rule file")} checked, ${plural(loaded.rules.length, "rule")} in effect: ${plural(errors, "error")}, ${plural(warnings, "warning")}`;
  lines.push(errors > 0 ? style.red(summary) : warnings > 0 ? style.yellow(summary) : style.green(summary));
  const log = `The plugin's log: ${logFile} (OpenCode 2); OpenCode 1 keeps it in its own log, ${openCodeLogDir(project.env, project.home)} (service opencode-rulebook)`;
  return result(`${lines.join("\n")}\n`, `${log}\n`, exitCode);
}
