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
 *
 * A rule with `agents:` or `models:` (scope.ts) applies only while the
 * session works as one of them, whatever its mode; the user's `@name` and
 * the model's own read with the `rule` tool are asked for by name and reach
 * past that.
 */
import type { Rule } from "../rule/rule.js";
import { matchingGlob } from "../glob/rule-glob.js";
import { matchingKeyword } from "./keywords.js";
import type { ActivationReason, ConditionMet, ContentMatch, FileMatch } from "./reasons.js";
import { activationOf, mergePlaces, ruleSetIndex } from "./rule-set.js";
import { isScoped, outOfScopeText, scopeMatch, type ScopeMatch, type WorkingAs } from "./scope.js";

export interface SessionContext {
  /** Files in the session's context: project-relative POSIX paths (absolute outside the project). */
  files: Iterable<string>;
  /** The user's prompt text, for keywords. */
  prompt?: string;
  /** Rules mentioned as `@name`. */
  mentioned?: ReadonlySet<string>;
  /** Rules activated earlier in the session, with the reason: they stay active after compaction. */
  activated?: ReadonlyMap<string, ActivationReason>;
  /**
   * Rules whose globs already matched a file of the session, with the file and the glob.
   * A caller that keeps this up to date as files arrive (`matchNewFiles`) passes
   * only the new files, so an event's cost does not grow with the working set.
   */
  fileMatches?: ReadonlyMap<string, FileMatch>;
  /** Rules whose content patterns matched the text of a file of the session (content.ts records them as texts arrive). */
  contentMatches?: ReadonlyMap<string, ContentMatch>;
  /** The agent and model the session works as now, for rules with `agents:` or `models:`. */
  workingAs?: WorkingAs;
}

export interface ActiveRule {
  rule: Rule;
  /** Why it applies; `reasonText` (reasons.ts) words it: `always`, `file src/app.ts matched src/**\/*.ts`. */
  reason: ActivationReason;
  /** For a rule with `agents:` or `models:`: the agent and model pattern it applies for now. */
  scope?: ScopeMatch;
}

/** Asked for by name (the user's `@name`, the model's read with the `rule` tool): past any scope. */
export const isExplicit = (reason: ActivationReason | undefined): boolean =>
  reason?.kind === "mention" || reason?.kind === "rule-tool";

/** Why `rule` applies in `context`, or undefined when it does not. */
export function whyRuleApplies(rule: Rule, context: SessionContext): ActivationReason | undefined {
  if (context.mentioned?.has(rule.name)) return { kind: "mention", rule: rule.name };
  const earlier = context.activated?.get(rule.name);
  if (isExplicit(earlier)) return earlier;
  if (isScoped(rule) && scopeMatch(rule, context.workingAs) === undefined) return undefined;
  if (earlier !== undefined) return earlier;
  const mode = activationOf(rule);
  if (mode === "always") return { kind: "always" };
  if (mode !== "conditional") return undefined;
  const met: ConditionMet[] = [];
  let failed = false;
  if (rule.globs.length > 0) {
    const fileMatch = context.fileMatches?.get(rule.name) ?? matchFiles(rule.globs, context.files);
    if (fileMatch) met.push(fileMatch);
    else failed = true;
  }
  if (rule.keywords.length > 0) {
    const keyword = context.prompt ? keywordOf(rule, context.prompt) : undefined;
    if (keyword !== undefined) met.push({ kind: "keyword", keyword });
    else failed = true;
  }
  if (rule.fileContains !== undefined) {
    const content = contentMatchOf(rule, context.contentMatches);
    if (content) met.push(content);
    else failed = true;
  }
  const [first, ...more] = met;
  if (first === undefined || (rule.match === "all" && failed)) return undefined;
  return { kind: "conditions", met: [first, ...more] };
}

/** Why `rule` does not apply, for the command line's `explain`; undefined when it does apply. */
export function whyRuleDoesNotApply(rule: Rule, context: SessionContext): string | undefined {
  if (whyRuleApplies(rule, context) !== undefined) return undefined;
  const outOfScope = outOfScopeText(rule, context.workingAs);
  if (outOfScope !== undefined) return outOfScope;
  const mode = activationOf(rule);
  if (mode === "on-request") return "on request: listed by description, read with the rule tool";
  if (mode === "manual") return `manual: applies only when the prompt mentions @${rule.name}`;
  const missing: string[] = [];
  if (rule.globs.length > 0 && !(context.fileMatches?.get(rule.name) ?? matchFiles(rule.globs, context.files)))
    missing.push(`files: no file matched ${rule.globs.join(", ")}`);
  if (rule.keywords.length > 0 && !(context.prompt && keywordOf(rule, context.prompt))) {
    missing.push(`keywords: none of ${rule.keywords.join(", ")} in the prompt`);
  }
  if (rule.fileContains !== undefined && !contentMatchOf(rule, context.contentMatches)) {
    missing.push(
      `content: no file of the session seen containing ${rule.fileContains.map(({ written }) => JSON.stringify(written)).join(", ")}`,
    );
  }
  return rule.match === "all" ? `all conditions needed; ${missing.join("; ")}` : missing.join("; ");
}

export function activeRulesFor(rules: readonly Rule[], context: SessionContext): ActiveRule[] {
  return activeRulesAmong(rules, context);
}

/**
 * `activeRulesFor` of the rules `skip` does not leave out. Only rules that may
 * apply are looked at: the always-on ones, those mentioned or activated
 * earlier, and conditional ones with a file match or a keyword in the prompt
 * (all conditional ones when files come in `context.files`).
 */
export function activeRulesAmong(
  rules: readonly Rule[],
  context: SessionContext,
  skip?: (rule: Rule) => boolean,
): ActiveRule[] {
  const materialised = { ...context, files: [...context.files] };
  const index = ruleSetIndex(rules);
  const more: number[] = [];
  const byName = (name: string) => {
    for (const place of index.positions.get(name) ?? []) more.push(place);
  };
  for (const name of context.mentioned ?? []) byName(name);
  for (const [name, reason] of context.activated ?? []) if (reason !== undefined) byName(name);
  if (materialised.files.length > 0) for (const place of index.conditional) more.push(place);
  else for (const name of context.fileMatches?.keys() ?? []) byName(name);
  for (const name of context.contentMatches?.keys() ?? []) byName(name);
  if (context.prompt) for (const place of index.keywords().matching(context.prompt)) more.push(place);
  const active: ActiveRule[] = [];
  for (const place of mergePlaces(
    index.always,
    more.sort((a, b) => a - b),
  )) {
    const rule = rules[place] as Rule;
    if (skip?.(rule)) continue;
    const reason = whyRuleApplies(rule, materialised);
    if (reason === undefined) continue;
    const scope = isScoped(rule) && !isExplicit(reason) ? scopeMatch(rule, context.workingAs) : undefined;
    active.push(scope ? { rule, reason, scope } : { rule, reason });
  }
  return active;
}

/** Records, for each glob rule not matched yet, the first of `newFiles` that matches it. */
export function matchNewFiles(
  rules: readonly Rule[],
  newFiles: readonly string[],
  fileMatches: Map<string, FileMatch>,
): void {
  if (newFiles.length === 0) return;
  // Only rules with a glob that may match one of the files: the others would find nothing.
  const globs = ruleSetIndex(rules).globs();
  const candidates = new Set<number>();
  for (const file of newFiles) globs.collect(file, candidates);
  for (const place of mergePlaces(
    globs.everywhere,
    [...candidates].sort((a, b) => a - b),
  )) {
    const rule = rules[place] as Rule;
    if (fileMatches.has(rule.name)) continue;
    const reason = matchFiles(rule.globs, newFiles);
    if (reason) fileMatches.set(rule.name, reason);
  }
}

/** The rule's keyword the prompt holds, as a whole word. */
const keywordOf = (rule: Rule, prompt: string): string | undefined => matchingKeyword(prompt, rule.keywords);

/** The content match recorded for the rule, if its pattern is still one of the rule's (its file may have changed since). */
function contentMatchOf(rule: Rule, matches: ReadonlyMap<string, ContentMatch> | undefined): ContentMatch | undefined {
  const match = matches?.get(rule.name);
  return match && rule.fileContains?.some(({ written }) => written === match.pattern) ? match : undefined;
}

function matchFiles(globs: readonly string[], files: Iterable<string>): FileMatch | undefined {
  for (const file of files) {
    const glob = matchingGlob(file, globs);
    if (glob !== undefined) return { kind: "file", file, glob };
  }
  return undefined;
}
