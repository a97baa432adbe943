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
import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { openCodeLogDir, rulebookLogFile } from "../log-file.js";
import { composeRulesMessage } from "../render/compose.js";
import { renderRulesMessage } from "../render/message.js";
import { codeMask, proseRanges, type LineCode } from "../rule/markdown-code.js";
import { keyLine } from "../rule/keys.js";
import type { Rule } from "../rule/rule.js";
import { ruleWarning, warningText, type Severity } from "../rule/warnings.js";
import { matchingGlob, neverMatchesInProject, type OutsideProject } from "../glob/rule-glob.js";
import { nodeRuleFs } from "../discover/fs.js";
import type { LoadedRules } from "../formats/load.js";
import { walkBudget } from "../discover/walk-limits.js";
import { skippedInProjectTree, walkProjectTree } from "../discover/walk.js";
import { result, shownPath, type CommandResult, type ProjectContext } from "./context.js";
import { shownText } from "../render/shown-text.js";
import { byteLength, plural, type Style } from "./format.js";
import { AGENT_WALK_LIMITS, isKnownAgent, type KnownAgents } from "./known-agents.js";
import { readStart } from "./read-start.js";

export interface CheckOptions {
  json?: boolean;
}

export interface Problem {
  severity: Severity;
  path: string;
  line?: number;
  /** The rule concerned, when there is one. */
  rule?: string;
  message: string;
}

/** The project's files, project-relative POSIX; `complete` is false when the walk stopped at its limit. */
export interface ProjectFiles {
  files: string[];
  complete: boolean;
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

/** Why a glob never matches, and what to write instead. */
const OUTSIDE_PROJECT: Record<OutsideProject, (glob: string) => string> = {
  absolute: (glob) => {
    const fromRoot = glob.replace(/^(\.\/)*\/+/, "");
    return `it is an absolute path, and project files are matched by their path from the project root${fromRoot === glob ? "" : ` (write "${fromRoot}" for a folder at the root)`}`;
  },
  home: () => "it starts at the home folder; globs are relative to the project root",
  parent: () => 'it starts with "..": above the project root, which globs are relative to',
  "folder-only": (glob) =>
    `it ends with "/", and a file's path never does (write "${glob}**" for everything in that folder)`,
  backslash: (glob) => `it separates folders with "\\"; write "${glob.replaceAll("\\", "/")}"`,
};

/** `agents`: the agents OpenCode knows here; absent, names in `agents:` are not checked. */
export function findProblems(
  project: ProjectContext,
  loaded: LoadedRules,
  projectFiles: ProjectFiles,
  agents?: KnownAgents,
): Problem[] {
  const problems: Problem[] = [];
  for (const warning of [...project.configWarnings, ...loaded.warnings]) {
    problems.push({
      severity: warning.severity,
      path: warning.path,
      line: warning.line,
      message: warningText(warning),
    });
  }
  const warn = (rule: Rule, message: string) =>
    problems.push({ severity: "warning", path: rule.path, rule: rule.name, message });

  for (const rule of loaded.rules) {
    // Unknown keys, unless discovery already warned about them.
    const reported = (key: string) =>
      loaded.warnings.some(
        (warning) => warning.path === rule.path && warning.code === "unknown-keys" && warning.keys.includes(key),
      );
    const unreported = rule.unknownKeys.filter((key) => !reported(key));
    if (unreported.length > 0)
      warn(
        rule,
        `front matter ${unreported.length === 1 ? "key" : "keys"} ${unreported.map((key) => `"${key}"`).join(", ")} not understood; ignored`,
      );
    for (const glob of rule.globs) {
      const outside = neverMatchesInProject(glob);
      if (outside) {
        warn(rule, `glob "${glob}" can never match a file in the project: ${OUTSIDE_PROJECT[outside](glob)}`);
        continue;
      }
      // A glob into a folder the list does not enter (`.git/**`, `node_modules/x/**`) may match what it cannot see.
      if (
        !projectFiles.complete ||
        isAbsolute(glob) ||
        glob.startsWith("!") ||
        glob.split("/").some(skippedInProjectTree)
      )
        continue;
      if (!projectFiles.files.some((file) => matchingGlob(file, [glob]) !== undefined))
        warn(rule, `glob "${glob}" matches no file in the project`);
    }
    const conditions = [rule.globs.length > 0, rule.keywords.length > 0, rule.fileContains !== undefined].filter(
      Boolean,
    ).length;
    if (rule.match === "all" && conditions < 2)
      warn(rule, `"match: all" has no effect with fewer than two of globs, keywords and fileContains`);
    // An incomplete list would make a warning of an agent defined past the walk's bounds.
    if (agents?.complete) {
      const unknown = new Map(
        (rule.agents ?? []).filter((name) => !isKnownAgent(agents, name)).map((name) => [name.toLowerCase(), name]),
      );
      const line = unknown.size > 0 ? frontMatterKeyLine(rule.path, "agents") : undefined;
      for (const agent of unknown.values()) {
        const warning = ruleWarning(rule.path, { code: "agent-unknown", agent, known: agents.names, line });
        problems.push({
          severity: warning.severity,
          path: rule.path,
          line,
          rule: rule.name,
          message: warningText(warning),
        });
      }
    }
    for (const target of missingLinks(rule, project.projectRoot))
      warn(rule, `links to ${target}, which does not exist`);
    const alone = byteLength(renderRulesMessage([rule]));
    if (alone > project.options.maxMessageBytes) {
      warn(
        rule,
        `the rule is ${alone} bytes as a message, over the ${project.options.maxMessageBytes}-byte message budget by itself: it is only ever named, never delivered`,
      );
    }
  }

  for (const { rule, by, forbidHolds } of loaded.shadowed) {
    const held = forbidHolds
      ? `; what it forbids still holds, since ${by.displayPath} is less trusted (a repository's rule cannot switch off the user's)`
      : "";
    const local = rule.pack && !by.pack ? ` (the pack ${rule.pack.label}'s rule, overridden locally)` : "";
    warn(
      rule,
      `shadowed by ${by.displayPath}, which has the same name "${rule.name}": this file is not delivered${local}${held}`,
    );
  }
  const byContent = new Map<string, Rule>();
  for (const rule of loaded.rules) {
    const first = byContent.get(rule.content);
    if (first) warn(rule, `same text as rule "${first.name}" (${first.displayPath})`);
    else byContent.set(rule.content, rule);
  }

  // A new session's message is its agent's: each agent a rule names (and the default, build) is one budget.
  const named = [...new Set(loaded.rules.flatMap((rule) => (rule.agents ?? []).map((agent) => agent.toLowerCase())))];
  for (const agent of named.length > 0 ? [...new Set(["build", ...named])] : [undefined]) {
    const start = composeRulesMessage(
      loaded.rules,
      { files: [], workingAs: { agent } },
      { listOnRequest: true, maxBytes: project.options.maxMessageBytes },
    );
    if (!start || start.leftOut.length === 0) continue;
    problems.push({
      severity: "warning",
      path: project.configPath ?? project.projectRoot,
      message: `the always-on rules${agent === undefined ? "" : ` for agent ${agent}`} exceed the ${project.options.maxMessageBytes}-byte message budget: ${start.leftOut.map((rule) => rule.name).join(", ")} left out of a new session's message (named only)`,
    });
  }
  return problems;
}

/** How much of a rule file is read again to find a front matter key's line: front matter is at the top, and short. */
const FRONT_MATTER_BYTES = 64 * 1024;

/** The 1-based line of a top-level key in the file's front matter, read again (a rule keeps its values, not their lines). */
function frontMatterKeyLine(path: string, key: string): number | undefined {
  const head = readStart(path, FRONT_MATTER_BYTES);
  return head === undefined ? undefined : keyLine(head, key);
}

/** Relative Markdown link targets of a rule that exist neither next to the rule file nor in the project root; what looks like a link in code (`arr[i](x.y)`) is code. */
function missingLinks(rule: Rule, projectRoot: string): string[] {
  const missing = new Set<string>();
  for (const match of proseOf(rule.content).matchAll(/\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = (match[1] ?? "").replace(/[#?].*$/, "");
    if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/") || target.startsWith("<"))
      continue;
    let decoded = target;
    try {
      decoded = decodeURIComponent(target);
    } catch {
      // keep it as written
    }
    if (!existsSync(resolve(dirname(rule.path), decoded)) && !existsSync(resolve(projectRoot, decoded)))
      missing.add(target);
  }
  return [...missing];
}

/** The text outside code: fenced lines dropped, inline code spans blanked, so nothing matched in it starts or ends in code. */
function proseOf(text: string): string {
  const lines = text.split("\n");
  const mask = codeMask(lines);
  return lines
    .map((line, i) => {
      const code = mask[i] as LineCode;
      if (code.fenced) return "";
      if (code.spans.length === 0) return line;
      return proseRanges(line, code)
        .map(([start, end]) => line.slice(start, end))
        .join(" ");
    })
    .join("\n");
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
  if (agents && !agents.complete && loaded.rules.some((rule) => rule.agents)) {
    notes.push(
      `OpenCode's agent folders hold more than ${AGENT_WALK_LIMITS.files} files or ${AGENT_WALK_LIMITS.folders} folders, or nest too deep: names in "agents" were not checked`,
    );
  }

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
