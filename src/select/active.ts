/**
 * Which rules apply now. Pure: the session's context comes in, the active
 * rules come out, each with the reason it applies (or does not).
 *
 * Activation modes:
 * - always: no trigger, or `alwaysApply: true`;
 * - conditional: its triggers (conditions/list.ts: files, keywords, content)
 *   hold, one of them (`match: any`) or all (`match: all`);
 * - on request: `alwaysApply: false` with a description and no trigger:
 *   listed by name and description, read with the `rule` tool;
 * - manual: `alwaysApply: false`, no description, no trigger;
 * and whatever the mode, `@name` in the prompt activates the rule.
 *
 * A rule with a scope (`agents:`, `models:`; scope.ts) applies only while
 * the session's facts are ones it is for, whatever its mode; the user's
 * `@name` and the model's own read with the `rule` tool are asked for by
 * name and reach past that.
 */
import {
  ACTIVATING,
  conditionOf,
  type ConditionMet,
  type ScopeMatch,
  type SessionFacts,
  type TriggerSession,
} from "../conditions/list.js";
import type { Rule } from "../rule/rule.js";
import type { ActivationReason } from "./reasons.js";
import { activationOf, mergePlaces, ruleSetIndex, shapeOf, type RuleShape } from "./rule-set.js";
import { outOfScopeText, scopeMatch } from "./scope.js";

/** What selection reads of a session: what its triggers read (TriggerSession), what was asked for, and its facts. */
export interface SelectionContext extends TriggerSession {
  /** Rules mentioned as `@name`. */
  mentioned?: ReadonlySet<string>;
  /** Rules activated earlier in the session, with the reason: they stay active after compaction. */
  activated?: ReadonlyMap<string, ActivationReason>;
  /** The facts the session works with now (its agent, its model), for rules with a scope. */
  facts?: SessionFacts;
}

export interface ActiveRule {
  rule: Rule;
  /** Why it applies; `reasonText` (reasons.ts) words it: `always`, `file src/app.ts matched src/**\/*.ts`. */
  reason: ActivationReason;
  /** For a rule with a scope: what of it the session's facts met (the agent, the model pattern). */
  scope?: ScopeMatch;
}

/** Asked for by name (the user's `@name`, the model's read with the `rule` tool): past any scope. */
export const isExplicit = (reason: ActivationReason | undefined): boolean =>
  reason?.kind === "mention" || reason?.kind === "rule-tool";

/** Why `rule` applies in `context`, or undefined when it does not. */
export const whyRuleApplies = (rule: Rule, context: SelectionContext): ActivationReason | undefined =>
  whyShapedRuleApplies(rule, shapeOf(rule), context);

function whyShapedRuleApplies(rule: Rule, shape: RuleShape, context: SelectionContext): ActivationReason | undefined {
  if (context.mentioned?.has(rule.name)) return { kind: "mention", rule: rule.name };
  const earlier = context.activated?.get(rule.name);
  if (isExplicit(earlier)) return earlier;
  if (shape.scoped && scopeMatch(rule, context.facts) === undefined) return undefined;
  if (earlier !== undefined) return earlier;
  if (shape.mode === "always") return { kind: "always" };
  if (shape.mode !== "conditional") return undefined;
  const met: ConditionMet[] = [];
  let failed = false;
  for (const { kind, value } of shape.triggers) {
    const held = kind.met(value, rule.name, context);
    if (held) met.push(held as ConditionMet);
    else failed = true;
  }
  const [first, ...more] = met;
  if (first === undefined || (rule.match === "all" && failed)) return undefined;
  return { kind: "conditions", met: [first, ...more] };
}

/** Why `rule` does not apply, for the command line's `explain`; undefined when it does apply. */
export function whyRuleDoesNotApply(rule: Rule, context: SelectionContext): string | undefined {
  if (whyRuleApplies(rule, context) !== undefined) return undefined;
  const outOfScope = outOfScopeText(rule, context.facts);
  if (outOfScope !== undefined) return outOfScope;
  const mode = activationOf(rule);
  if (mode === "on-request") return "on request: listed by description, read with the rule tool";
  if (mode === "manual") return `manual: applies only when the prompt mentions @${rule.name}`;
  const missing = ACTIVATING.flatMap((kind) => {
    const value = conditionOf(rule, kind);
    return value === undefined || kind.met(value, rule.name, context) ? [] : [kind.words.missing(value)];
  });
  return rule.match === "all" ? `all conditions needed; ${missing.join("; ")}` : missing.join("; ");
}

/**
 * The active rules among those `skip` does not leave out. Only rules that
 * may apply are looked at: the always-on ones, those mentioned or activated
 * earlier, and those a trigger kind finds may hold (its candidates: a file
 * its globs may match, a keyword in the prompt, a recorded content match).
 */
export function activeRulesAmong(
  rules: readonly Rule[],
  context: SelectionContext,
  skip?: (rule: Rule) => boolean,
): ActiveRule[] {
  const index = ruleSetIndex(rules);
  const placesOf = (name: string): readonly number[] => index.positions.get(name) ?? [];
  const more: number[] = [];
  for (const name of context.mentioned ?? []) more.push(...placesOf(name));
  for (const [name, reason] of context.activated ?? []) if (reason !== undefined) more.push(...placesOf(name));
  for (const kind of ACTIVATING) kind.candidates(rules, context, placesOf, more);
  const active: ActiveRule[] = [];
  for (const place of mergePlaces(
    index.always,
    more.sort((a, b) => a - b),
  )) {
    const rule = rules[place] as Rule;
    if (skip?.(rule)) continue;
    const shape = index.shapes[place] as RuleShape;
    const reason = whyShapedRuleApplies(rule, shape, context);
    if (reason === undefined) continue;
    const scope = shape.scoped && !isExplicit(reason) ? scopeMatch(rule, context.facts) : undefined;
    active.push(scope ? { rule, reason, scope } : { rule, reason });
  }
  return active;
}
