/**
 * What `check` says of a rule's conditions: globs that can never match or
 * match no file of the project (the files kind's values, against the
 * project's file list), `match: all` with fewer than two triggers, names in a
 * scope that no session can have (an agent OpenCode does not know), and the
 * new sessions whose message to size: one per fact a scope's rules name.
 */
import { isAbsolute } from "node:path";
import { conditionOf, NARROWING, ACTIVATING, type AnyNarrowing, type SessionFacts } from "../conditions/list.js";
import { globsOf } from "../conditions/files.js";
import { skippedInProjectTree } from "../discover/walk.js";
import { matchingGlob, neverMatchesInProject, type OutsideProject } from "../glob/rule-glob.js";
import type { Rule } from "../rule/rule.js";
import { ruleWarning, type RuleWarning } from "../rule/warnings.js";
import { AGENT_WALK_LIMITS, isKnownAgent, type KnownAgents } from "./known-agents.js";

/** The project's files, project-relative POSIX; `complete` is false when the walk stopped at its limit. */
export interface ProjectFiles {
  files: string[];
  complete: boolean;
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

/** What is wrong with the rule's globs, as `check` says it. */
export function globProblems(rule: Rule, projectFiles: ProjectFiles): string[] {
  const problems: string[] = [];
  for (const glob of globsOf(rule)) {
    const outside = neverMatchesInProject(glob);
    if (outside) {
      problems.push(`glob "${glob}" can never match a file in the project: ${OUTSIDE_PROJECT[outside](glob)}`);
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
      problems.push(`glob "${glob}" matches no file in the project`);
  }
  return problems;
}

/** `match: all` with fewer than two triggers changes nothing. */
export function matchAllProblem(rule: Rule): string | undefined {
  const triggers = ACTIVATING.filter((kind) => conditionOf(rule, kind) !== undefined).length;
  if (rule.match !== "all" || triggers >= 2) return undefined;
  const keys = ACTIVATING.map((kind) => kind.keys[0]);
  const named = `${keys.slice(0, -1).join(", ")} and ${keys[keys.length - 1]}`;
  return `"match: all" has no effect with fewer than two of ${named}`;
}

/** The lists of existing values `check` has, by the `knownBy` of the kinds they check. */
type KnownValues = { "opencode-agents"?: KnownAgents };

const namesOf = (rule: Rule, kind: AnyNarrowing) => (conditionOf(rule, kind) as readonly string[] | undefined) ?? [];

/**
 * Names in the rule's scopes that no session can have, each as the warning
 * its list gives (`line`: the key's, read again from the file). An
 * incomplete list warns about none: an agent defined past its bounds exists.
 */
export function unknownNameWarnings(
  rule: Rule,
  known: KnownValues,
  lineOf: (key: string) => number | undefined,
): RuleWarning[] {
  const warnings: RuleWarning[] = [];
  for (const kind of NARROWING) {
    const agents = kind.knownBy && known[kind.knownBy];
    if (!agents?.complete) continue;
    const unknown = new Map(
      namesOf(rule, kind)
        .filter((name) => !isKnownAgent(agents, name))
        .map((name) => [name.toLowerCase(), name]),
    );
    const line = unknown.size > 0 ? lineOf(kind.keys[0] as string) : undefined;
    for (const agent of unknown.values())
      warnings.push(ruleWarning(rule.path, { code: "agent-unknown", agent, known: agents.names, line }));
  }
  return warnings;
}

/** Why some names were not checked: a list that stopped at its bounds, for a kind some rule uses. */
export function knownNotes(rules: readonly Rule[], known: KnownValues): string[] {
  return NARROWING.flatMap((kind) => {
    const agents = kind.knownBy && known[kind.knownBy];
    if (!agents || agents.complete || !rules.some((rule) => conditionOf(rule, kind) !== undefined)) return [];
    return [
      `OpenCode's agent folders hold more than ${AGENT_WALK_LIMITS.files} files or ${AGENT_WALK_LIMITS.folders} folders, or nest too deep: names in "${kind.keys[0]}" were not checked`,
    ];
  });
}

/**
 * The new sessions whose message `check` sizes: a new session's message is
 * its facts', so each fact the rules of a scope name (and the one a session
 * starts as, `build`) is one budget; without such names, one session.
 */
export function newSessions(rules: readonly Rule[]): Array<{ facts: SessionFacts; label: string }> {
  const sessions = NARROWING.flatMap((kind) => {
    const named = [...new Set(rules.flatMap((rule) => namesOf(rule, kind).map((name) => name.toLowerCase())))];
    if (kind.startsAs === undefined || named.length === 0) return [];
    return [...new Set([kind.startsAs, ...named])].map((name) => ({
      facts: { [kind.fact]: name } as SessionFacts,
      label: ` for ${kind.words.noun} ${name}`,
    }));
  });
  return sessions.length > 0 ? sessions : [{ facts: {}, label: "" }];
}
