/**
 * Which rules apply now. Pure: the session's context comes in, the active
 * rules come out, each with the reason it applies.
 */
import type { Rule } from "../rule/rule.js";
import { matchingGlob } from "./globs.js";

export interface SessionContext {
  /** Files in the session's context: project-relative POSIX paths (absolute outside the project). */
  files: Iterable<string>;
}

export interface ActiveRule {
  rule: Rule;
  /** Why it applies, for people: `always`, `file src/app.ts matched src/**\/*.ts`. */
  reason: string;
}

/**
 * A rule with no condition, or `alwaysApply: true`, applies everywhere.
 * An explicit `alwaysApply: false` without globs is a manual rule (Cursor's
 * "agent requested" / "manual"): never on by default.
 */
export function isAlwaysOn(rule: Rule): boolean {
  return rule.alwaysApply === true || (rule.alwaysApply === undefined && rule.globs.length === 0);
}

/** Why `rule` applies in `context`, or undefined when it does not. */
export function whyRuleApplies(rule: Rule, context: SessionContext): string | undefined {
  if (isAlwaysOn(rule)) return "always";
  for (const file of context.files) {
    const glob = matchingGlob(file, rule.globs);
    if (glob !== undefined) return `file ${file} matched ${glob}`;
  }
  return undefined;
}

export function activeRulesFor(rules: readonly Rule[], context: SessionContext): ActiveRule[] {
  const files = [...context.files];
  const active: ActiveRule[] = [];
  for (const rule of rules) {
    const reason = whyRuleApplies(rule, { files });
    if (reason !== undefined) active.push({ rule, reason });
  }
  return active;
}
