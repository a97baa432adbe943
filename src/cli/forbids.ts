/**
 * What a rule forbids, for people: `list` marks the rules that hold,
 * `explain` says what each forbids in the files it is given, for the agent
 * and model given. A rule forbids text in the files its globs match (every
 * file without globs) and commands whatever the files, within its scope, as
 * the engine's check has it (enforce/violations.ts). Pure.
 */
import { globsOf } from "../conditions/files.js";
import type { SessionFacts } from "../conditions/list.js";
import { forbidsIn } from "../enforce/violations.js";
import { codeSpan, shownLine } from "../render/refusal.js";
import type { EnforceMode, Rule } from "../rule/rule.js";
import { inScope, outOfScopeText } from "../select/scope.js";

/** A rule that forbids, as a hypothetical session would meet it. */
interface Forbidding {
  rule: Rule;
  mode: EnforceMode;
  /** The given files its `forbid` patterns hold in. */
  files: string[];
  /** For the agent and model given. */
  applies: boolean;
}

/** `enforces: block`, for a rule that forbids something. */
export function enforcesLabel(rule: Rule): string | undefined {
  return rule.enforce ? `enforces: ${rule.enforce.mode}` : undefined;
}

/** The rule's enforcement in JSON: its mode and its patterns as written; null when it forbids nothing. */
export function enforceJson(rule: Rule) {
  if (!rule.enforce) return null;
  const { mode, forbid, forbidCommands } = rule.enforce;
  return {
    mode,
    forbid: forbid.map((pattern) => pattern.written),
    forbidCommands: forbidCommands.map((pattern) => pattern.written),
  };
}

/** The rules that forbid, each with the files (of `files`) its patterns hold in. */
export function forbiddingRules(rules: readonly Rule[], files: readonly string[], as: SessionFacts): Forbidding[] {
  return rules.flatMap((rule) => {
    if (!rule.enforce) return [];
    const holds = files.filter((file) => forbidsIn(rule, file));
    return [
      { rule, mode: rule.enforce.mode, files: rule.enforce.forbid.length > 0 ? holds : [], applies: inScope(rule, as) },
    ];
  });
}

/** `` `console.log(` in src/app.ts; commands `/git push -f/` ``, and why it does not hold for this agent or model. */
export function forbiddingText(
  { rule, files, applies }: Forbidding,
  given: readonly string[],
  as: SessionFacts,
): string {
  const enforce = rule.enforce;
  if (!enforce) return "";
  const parts: string[] = [];
  if (enforce.forbid.length > 0) parts.push(`${patterns(enforce.forbid)} in ${where(rule, files, given)}`);
  if (enforce.forbidCommands.length > 0) parts.push(`commands ${patterns(enforce.forbidCommands)}`);
  const out = applies ? undefined : outOfScopeText(rule, as);
  return out === undefined ? parts.join("; ") : `${parts.join("; ")}; not here: ${out}`;
}

const patterns = (list: ReadonlyArray<{ written: string }>) =>
  list.map((pattern) => codeSpan(shownLine(pattern.written))).join(", ");

/** The given files it holds in; else where it would. */
function where(rule: Rule, files: readonly string[], given: readonly string[]): string {
  if (files.length > 0) return files.join(", ");
  const globs = globsOf(rule);
  if (globs.length === 0) return "every file";
  return `files matching ${globs.join(", ")}${given.length > 0 ? " (none of the files given)" : ""}`;
}
