/**
 * Which rules a tool call breaks: the forbidden patterns of the rules that
 * apply, matched against what the call adds (a file's added lines, a
 * command as the shell reads it). Pure but for the clock and the pause the
 * budget holds. Each trust's patterns are scanned in one pass
 * (`pattern-scan.ts`); only then does a hit count for a rule that applies to
 * the file and to the agent and model at work.
 */
import { globsOf } from "../conditions/files.js";
import type { SessionFacts } from "../conditions/list.js";
import { matchingGlob } from "../glob/rule-glob.js";
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import { type ScanBudget, type ScanHit, scanWithin } from "../pattern/pattern-scan.js";
import { scanInSlices, type Slicing } from "../pattern/scan-slices.js";
import type { EnforceMode, Rule } from "../rule/rule.js";
import { trustOf } from "../rule/trust.js";
import { inScope } from "../select/scope.js";
import { type Forbidden, forbiddingTiers, type Tier } from "./forbidding-tiers.js";
import type { AddedLine } from "./proposed.js";
import { commandUnits } from "./shell-commands.js";

/** What the check reads: the lines a call adds to a file (project-relative, as the working set names it), or a command. */
export type CheckedChange =
  | { readonly kind: "file"; readonly file: string; readonly added: readonly AddedLine[] }
  | { readonly kind: "command"; readonly command: string };

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
  /** The rule is shadowed by this less trusted rule of its name: its text is not delivered, its forbids hold. */
  shadowedBy?: Rule;
}

interface CallCheck {
  /** One per rule and change: the first line that breaks it. */
  violations: Violation[];
  /** False when the budget ran out before everything was scanned: what was not scanned was not checked. */
  complete: boolean;
  /** When not complete: the rules some of whose patterns were not scanned against everything the call adds. */
  unreached?: Rule[];
}

/** The user's escape: `warn` makes every block a warning, `off` checks nothing; neither touches a managed rule. */
export type EnforceOption = "block" | "warn" | "off";

/** The rules whose forbids are checked (formats/load.ts `enforcingRules`), and those of them a less trusted rule shadows, by what shadows them. */
export interface Forbidding {
  readonly rules: readonly Rule[];
  readonly shadowedBy?: ReadonlyMap<Rule, Rule>;
}

/** What one check reads: the changes, the rules, as the session works (`as`), and the user's option. */
interface CheckInput {
  readonly changes: readonly CheckedChange[];
  readonly forbidding: Forbidding;
  readonly as: SessionFacts;
  readonly option: Exclude<EnforceOption, "off">;
}

/** A check's time: `deadline` ends it; it lets other work run every `sliceMs` (pattern/scan-slices.ts). */
export type CheckBudget = ScanBudget & Slicing;

/** True when some rule of the set forbids something: only then is a call worth reading. */
export const anyForbidden = (rules: readonly Rule[]): boolean => rules.some((rule) => rule.enforce !== undefined);

/**
 * The rules the changes break, within `budget`, in slices. Trust by trust,
 * the most trusted first, each with its own share of the time left (split
 * evenly among the trusts still to check): nothing a repository adds can
 * keep the user's rules from being checked.
 */
export async function checkedViolations(input: CheckInput, budget: CheckBudget): Promise<CallCheck> {
  const tiers = forbiddingTiers(input.forbidding.rules);
  const found = foundViolations(input);
  const units = input.changes.map(unitsOf);
  const unreached = new Set<Rule>();
  let complete = true;
  for (const [at, tier] of tiers.entries()) {
    const now = budget.now();
    const share = { ...budget, deadline: now + Math.max(0, budget.deadline - now) / (tiers.length - at) };
    for (const scan of scansOf(tier, input.changes, units)) {
      const result = await scanInSlices(scan.core, scan.units, share);
      found.add(scan.kind, scan.change, result.hits);
      if (result.complete) continue;
      complete = false;
      for (const index of result.unreached ?? []) unreached.add(scan.kind.owners[index]!.rule);
    }
  }
  return complete
    ? { violations: found.violations, complete }
    : { violations: found.violations, complete, unreached: [...unreached] };
}

/** The rules `changes` break, as the session works (`as`), scanned in one go within `budget` (`verify`, which holds no session). */
export function violationsIn(
  changes: readonly CheckedChange[],
  rules: readonly Rule[],
  as: SessionFacts,
  option: Exclude<EnforceOption, "off">,
  budget: ScanBudget,
): CallCheck {
  const found = foundViolations({ changes, forbidding: { rules }, as, option });
  const units = changes.map(unitsOf);
  let complete = true;
  for (const tier of forbiddingTiers(rules)) {
    for (const scan of scansOf(tier, changes, units)) {
      const result = scanWithin(scan.core, scan.units, budget);
      found.add(scan.kind, scan.change, result.hits);
      complete &&= result.complete;
    }
  }
  return { violations: found.violations, complete };
}

/** The texts a change is matched as: a file's added lines; a command as the shell reads it. */
const unitsOf = (change: CheckedChange): readonly string[] =>
  change.kind === "file" ? change.added.map((added) => added.text) : commandUnits(change.command);

/** One trust's scans of a call: each change (its units read once for every trust) against that trust's patterns of its kind, when it has some. */
function scansOf(tier: Tier, changes: readonly CheckedChange[], units: readonly (readonly string[])[]) {
  return changes.flatMap((change, at) => {
    const kind = change.kind === "file" ? tier.file : tier.command;
    const texts = units[at]!;
    return kind.core && texts.length > 0 ? [{ change, kind, core: kind.core, units: texts }] : [];
  });
}

/** Hits turned into violations: a rule's first hit per change, in the order the call adds its lines. */
function foundViolations({ as, option, forbidding }: CheckInput) {
  const violations: Violation[] = [];
  const broken = new Map<CheckedChange, Set<Rule>>();
  const add = (kind: Forbidden, change: CheckedChange, hits: readonly ScanHit[]) => {
    const done = broken.get(change) ?? new Set<Rule>();
    broken.set(change, done);
    for (const hit of hits) {
      const owner = kind.owners[hit.pattern];
      if (!owner || done.has(owner.rule) || !applies(owner.rule, change, as)) continue;
      done.add(owner.rule);
      // The user's option never weakens a managed rule (docs/team-packs.md, "The managed tier").
      const mode: EnforceMode =
        option === "warn" && trustOf(owner.rule) !== "managed" ? "warn" : (owner.rule.enforce?.mode ?? "block");
      const by = forbidding.shadowedBy?.get(owner.rule);
      const found: Violation = {
        rule: owner.rule,
        pattern: owner.pattern,
        mode,
        line: change.kind === "command" ? change.command : "",
      };
      if (by) found.shadowedBy = by;
      if (change.kind === "file") {
        const added = change.added[hit.unit] as AddedLine;
        found.file = change.file;
        found.line = added.text;
        if (added.line !== undefined) found.lineNumber = added.line;
      }
      violations.push(found);
    }
  };
  return { violations, add };
}

/** A rule forbids in the files its globs match (every file without globs), for the agents and models it is scoped to. */
function applies(rule: Rule, change: CheckedChange, as: SessionFacts): boolean {
  if (!inScope(rule, as)) return false;
  return change.kind === "command" || forbidsIn(rule, change.file);
}

/** The file is one a rule's `forbid` patterns hold in: its globs match it, or it has none. */
export const forbidsIn = (rule: Rule, file: string): boolean => {
  const globs = globsOf(rule);
  return globs.length === 0 || matchingGlob(file, globs) !== undefined;
};
