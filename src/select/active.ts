/**
 * Which rules apply now. Pure: the session's context comes in, the active
 * rules come out, each with the reason it applies (or does not).
 *
 * Activation modes:
 * - always: no condition, or `alwaysApply: true`;
 * - files: `globs` match a file in the session's working set;
 * - keywords: a keyword is a whole word of the user's prompt;
 * - on request: `alwaysApply: false` with a description and no condition:
 *   listed by name and description, read with the `rule` tool;
 * - manual: `alwaysApply: false`, no description, no condition;
 * and whatever the mode, `@name` in the prompt activates the rule.
 */
import type { Rule } from "../rule/rule.js";
import { matchingGlob } from "./globs.js";
import { matchingKeyword } from "./keywords.js";

export type ActivationMode = "always" | "conditional" | "on-request" | "manual";

export interface SessionContext {
  /** Files in the session's context: project-relative POSIX paths (absolute outside the project). */
  files: Iterable<string>;
  /** The user's prompt text, for keywords. */
  prompt?: string;
  /** Rules mentioned as `@name`. */
  mentioned?: ReadonlySet<string>;
  /** Rules activated earlier in the session, with the reason: they stay active after compaction. */
  activated?: ReadonlyMap<string, string>;
  /**
   * Rules whose globs already matched a file of the session, with the reason.
   * A caller that keeps this up to date as files arrive (`matchNewFiles`) passes
   * only the new files, so an event costs O(rules), not O(rules × files).
   */
  fileMatches?: ReadonlyMap<string, string>;
}

export interface ActiveRule {
  rule: Rule;
  /** Why it applies, for people: `always`, `file src/app.ts matched src/**\/*.ts`. */
  reason: string;
}

export function activationOf(rule: Rule): ActivationMode {
  if (rule.alwaysApply === true) return "always";
  if (rule.globs.length > 0 || rule.keywords.length > 0) return "conditional";
  if (rule.alwaysApply === false) return rule.description ? "on-request" : "manual";
  return "always";
}

/** Why `rule` applies in `context`, or undefined when it does not. */
export function whyRuleApplies(rule: Rule, context: SessionContext): string | undefined {
  if (context.mentioned?.has(rule.name)) return `mention: @${rule.name} in the prompt`;
  const earlier = context.activated?.get(rule.name);
  if (earlier !== undefined) return earlier;
  const mode = activationOf(rule);
  if (mode === "always") return "always";
  if (mode !== "conditional") return undefined;
  const reasons: string[] = [];
  let failed = false;
  if (rule.globs.length > 0) {
    const fileReason = context.fileMatches?.get(rule.name) ?? matchFiles(rule.globs, context.files);
    if (fileReason) reasons.push(fileReason);
    else failed = true;
  }
  if (rule.keywords.length > 0) {
    const keyword = context.prompt ? matchingKeyword(context.prompt, rule.keywords) : undefined;
    if (keyword !== undefined) reasons.push(`keyword "${keyword}" in the prompt`);
    else failed = true;
  }
  if (reasons.length === 0 || (rule.match === "all" && failed)) return undefined;
  return reasons.join(" and ");
}

/** Why `rule` does not apply, for the command line's `explain`; undefined when it does apply. */
export function whyRuleDoesNotApply(rule: Rule, context: SessionContext): string | undefined {
  if (whyRuleApplies(rule, context) !== undefined) return undefined;
  const mode = activationOf(rule);
  if (mode === "on-request") return "on request: listed by description, read with the rule tool";
  if (mode === "manual") return `manual: applies only when the prompt mentions @${rule.name}`;
  const missing: string[] = [];
  if (rule.globs.length > 0 && !(context.fileMatches?.get(rule.name) ?? matchFiles(rule.globs, context.files))) missing.push(`files: no file matched ${rule.globs.join(", ")}`);
  if (rule.keywords.length > 0 && !(context.prompt && matchingKeyword(context.prompt, rule.keywords))) {
    missing.push(`keywords: none of ${rule.keywords.join(", ")} in the prompt`);
  }
  return rule.match === "all" ? `all conditions needed; ${missing.join("; ")}` : missing.join("; ");
}

export function activeRulesFor(rules: readonly Rule[], context: SessionContext): ActiveRule[] {
  const materialised = { ...context, files: [...context.files] };
  const active: ActiveRule[] = [];
  for (const rule of rules) {
    const reason = whyRuleApplies(rule, materialised);
    if (reason !== undefined) active.push({ rule, reason });
  }
  return active;
}

/** Records, for each glob rule not matched yet, the first of `newFiles` that matches it. */
export function matchNewFiles(rules: readonly Rule[], newFiles: readonly string[], fileMatches: Map<string, string>): void {
  if (newFiles.length === 0) return;
  for (const rule of rules) {
    if (rule.globs.length === 0 || fileMatches.has(rule.name)) continue;
    const reason = matchFiles(rule.globs, newFiles);
    if (reason) fileMatches.set(rule.name, reason);
  }
}

function matchFiles(globs: readonly string[], files: Iterable<string>): string | undefined {
  for (const file of files) {
    const glob = matchingGlob(file, globs);
    if (glob !== undefined) return `file ${file} matched ${glob}`;
  }
  return undefined;
}
