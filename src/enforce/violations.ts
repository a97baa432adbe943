/**
 * Which rules a tool call breaks: the forbidden patterns of the rules that
 * apply, matched against what the call adds (a file's added lines, a
 * command). Pure but for the clock the budget reads. Every pattern of the
 * rule set is scanned in one pass (`pattern-scan.ts`); only then does a hit
 * count for a rule that applies to the file and to the agent and model at work.
 */
import { matchingGlob } from "../glob/rule-glob.js";
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import { type PatternScan, patternScanner, type ScanBudget } from "../pattern/pattern-scan.js";
import type { EnforceMode, Rule } from "../rule/rule.js";
import { inScope, type WorkingAs } from "../select/scope.js";
import type { AddedLine } from "./proposed.js";

/** What the check reads: the lines a call adds to a file (project-relative, as the working set names it), or a command. */
export type CheckedChange = { readonly kind: "file"; readonly file: string; readonly added: readonly AddedLine[] } | { readonly kind: "command"; readonly command: string };

export interface Violation {
  rule: Rule;
  pattern: ForbidPattern;
  /** What the call meets: the rule's mode, or the user's `enforce: "warn"` over it. */
  mode: EnforceMode;
  /** The file the line was to go into; absent for a command. */
  file?: string;
  /** The offending line, or the command. */
  line: string;
  lineNumber?: number;
}

export interface CallCheck {
  /** One per rule and change: the first line that breaks it. */
  violations: Violation[];
  /** False when the budget ran out before everything was scanned: what was not scanned was not checked. */
  complete: boolean;
}

/** The user's escape: `warn` makes every block a warning (`off` is never checked at all). */
export type EnforceOption = "block" | "warn" | "off";

/** The patterns of one kind, each with the rule it belongs to, and their scanner. */
interface Forbidden {
  owners: ReadonlyArray<{ rule: Rule; pattern: ForbidPattern }>;
  scanner?: PatternScan;
}

interface Enforcers {
  file: Forbidden;
  command: Forbidden;
}

/** Built once per rule set (a reload gives a new list): compiling thousands of patterns is the costly part. */
const built = new WeakMap<readonly Rule[], Enforcers>();

/** The rule set's forbidden patterns; none when no rule forbids anything. */
function enforcersOf(rules: readonly Rule[]): Enforcers {
  let found = built.get(rules);
  if (!found) {
    const forbidding = rules.filter((rule) => rule.enforce !== undefined);
    found = {
      file: forbidden(forbidding.flatMap((rule) => (rule.enforce?.forbid ?? []).map((pattern) => ({ rule, pattern })))),
      command: forbidden(forbidding.flatMap((rule) => (rule.enforce?.forbidCommands ?? []).map((pattern) => ({ rule, pattern })))),
    };
    built.set(rules, found);
  }
  return found;
}

function forbidden(owners: Array<{ rule: Rule; pattern: ForbidPattern }>): Forbidden {
  return owners.length === 0 ? { owners } : { owners, scanner: patternScanner(owners.map(({ pattern }) => pattern)) };
}

/** True when some rule of the set forbids something: only then is a call worth reading. */
export const anyForbidden = (rules: readonly Rule[]): boolean => rules.some((rule) => rule.enforce !== undefined);

/** The rules `changes` break, as the session works (`as`), within `budget`. */
export function violationsIn(changes: readonly CheckedChange[], rules: readonly Rule[], as: WorkingAs, option: Exclude<EnforceOption, "off">, budget: ScanBudget): CallCheck {
  const enforcers = enforcersOf(rules);
  const violations: Violation[] = [];
  let complete = true;
  for (const change of changes) {
    const kind = change.kind === "file" ? enforcers.file : enforcers.command;
    if (!kind.scanner) continue;
    const units = change.kind === "file" ? change.added.map((added) => added.text) : [change.command];
    if (units.length === 0) continue;
    const scan = kind.scanner(units, budget);
    if (!scan.complete) complete = false;
    const broken = new Set<string>();
    // The first line of each rule, in the order the call adds them.
    for (const hit of scan.hits) {
      const owner = kind.owners[hit.pattern];
      if (!owner || broken.has(owner.rule.name) || !applies(owner.rule, change, as)) continue;
      broken.add(owner.rule.name);
      const mode: EnforceMode = option === "warn" ? "warn" : (owner.rule.enforce?.mode ?? "block");
      if (change.kind === "command") violations.push({ rule: owner.rule, pattern: owner.pattern, mode, line: change.command });
      else {
        const added = change.added[hit.unit] as AddedLine;
        violations.push({ rule: owner.rule, pattern: owner.pattern, mode, file: change.file, line: added.text, ...(added.line === undefined ? {} : { lineNumber: added.line }) });
      }
    }
  }
  return { violations, complete };
}

/** A rule forbids in the files its globs match (every file without globs), for the agents and models it is scoped to. */
function applies(rule: Rule, change: CheckedChange, as: WorkingAs): boolean {
  if (!inScope(rule, as)) return false;
  return change.kind === "command" || forbidsIn(rule, change.file);
}

/** The file is one a rule's `forbid` patterns hold in: its globs match it, or it has none. */
export const forbidsIn = (rule: Rule, file: string): boolean => rule.globs.length === 0 || matchingGlob(file, rule.globs) !== undefined;
