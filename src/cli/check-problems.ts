/**
 * `check`'s findings, one per problem: the warnings of loading, and what
 * only a look at the project shows (unknown keys, conditions that never
 * hold or change nothing, links to missing files, shadowed or duplicate
 * rules, rules and new sessions over the message budget).
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { LoadedRules } from "../formats/load.js";
import { composeRulesMessage } from "../render/compose.js";
import { renderRulesMessage } from "../render/message.js";
import { keyLine } from "../rule/keys.js";
import { codeMask, proseRanges, type LineCode } from "../rule/markdown-code.js";
import type { Rule } from "../rule/rule.js";
import type { Severity } from "../rule/warning-codes.js";
import { warningText } from "../rule/warnings.js";
import {
  globProblems,
  matchAllProblem,
  newSessions,
  unknownNameWarnings,
  type ProjectFiles,
} from "./check-conditions.js";
import type { ProjectContext } from "./context.js";
import { byteLength } from "../render/name-list.js";
import type { KnownAgents } from "./known-agents.js";
import { readStart } from "./read-start.js";

interface Problem {
  severity: Severity;
  path: string;
  line?: number;
  /** The rule concerned, when there is one. */
  rule?: string;
  message: string;
}

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
    for (const message of globProblems(rule, projectFiles)) warn(rule, message);
    const matchAll = matchAllProblem(rule);
    if (matchAll !== undefined) warn(rule, matchAll);
    const lineOf = (key: string) => frontMatterKeyLine(rule.path, key);
    for (const warning of unknownNameWarnings(rule, { "opencode-agents": agents }, lineOf)) {
      const { severity, path, line } = warning;
      problems.push({ severity, path, line, rule: rule.name, message: warningText(warning) });
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
    if (first) warn(rule, `same text as rule "${first.name}" (${first.displayPath}): the model gets the text once`);
    else byContent.set(rule.content, rule);
  }

  for (const { facts, label } of newSessions(loaded.rules)) {
    const start = composeRulesMessage(
      loaded.rules,
      { files: [], facts },
      { listOnRequest: true, maxBytes: project.options.maxMessageBytes },
    );
    if (!start || start.leftOut.length === 0) continue;
    problems.push({
      severity: "warning",
      path: project.configPath ?? project.projectRoot,
      message: `the always-on rules${label} exceed the ${project.options.maxMessageBytes}-byte message budget: ${start.leftOut.map((rule) => rule.name).join(", ")} left out of a new session's message (named only)`,
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
