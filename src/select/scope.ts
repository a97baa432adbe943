/**
 * Rules for some agents or models: the narrowing condition kinds
 * (conditions/list.ts), and whether the facts a session has now (its agent,
 * its model) are ones a rule is for. Pure. A scope narrows whatever else
 * decides a rule (its mode, its triggers); only the user's own `@name` and
 * the model's own read with the `rule` tool reach past it (active.ts).
 */
import { conditionOf, factOf, hasSome, NARROWING, type AnyNarrowing, type ScopeMatch } from "../conditions/list.js";
import type { SessionFacts } from "../conditions/list.js";
import type { Rule } from "../rule/rule.js";

type Scoped = Pick<Rule, "conditions">;

const namesOf = (rule: Scoped, kind: AnyNarrowing) => conditionOf(rule, kind) as readonly string[] | undefined;

/** A rule has a scope when it names agents, models, or whatever else a narrowing kind reads. */
export const isScoped = (rule: Scoped): boolean => hasSome(rule, NARROWING);

/**
 * What of the rule's scope `facts` meet (empty for a rule without one), or
 * undefined when the rule is not for this session. A fact that is not known
 * yet meets no scope that reads it: a rule for `plan` never reaches a
 * session that may not be planning.
 */
export function scopeMatch(rule: Scoped, facts: SessionFacts | undefined): ScopeMatch | undefined {
  const match: Record<string, string> = {};
  for (const kind of NARROWING) {
    const names = namesOf(rule, kind);
    if (names === undefined) continue;
    const met = kind.holds(names, factOf(facts, kind));
    if (met === undefined) return undefined;
    match[kind.fact] = met;
  }
  return match as ScopeMatch;
}

export const inScope = (rule: Scoped, facts: SessionFacts | undefined): boolean =>
  scopeMatch(rule, facts) !== undefined;

/** One kind's names in words: `agent plan`, `agents plan, build`. */
const namesText = (kind: AnyNarrowing, names: readonly string[]) =>
  `${names.length === 1 ? kind.words.noun : kind.words.nouns} ${names.join(", ")}`;

/** The scope in words: `agent plan`, `agents plan, build; model anthropic/*`. */
export function scopeText(rule: Scoped): string | undefined {
  const parts = NARROWING.flatMap((kind) => {
    const names = namesOf(rule, kind);
    return names ? [namesText(kind, names)] : [];
  });
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/**
 * Why a rule's scope leaves it out, naming only what it concerns:
 * `for agent plan only; the session works as agent build`, `for model
 * anthropic/* only; the session's model is not known yet`. Undefined when in scope.
 */
export function outOfScopeText(rule: Scoped, facts: SessionFacts | undefined): string | undefined {
  const reasons = NARROWING.flatMap((kind) => {
    const names = namesOf(rule, kind);
    const fact = factOf(facts, kind);
    if (names === undefined || kind.holds(names, fact) !== undefined) return [];
    return [`for ${namesText(kind, names)} only; ${kind.words.now(fact)}`];
  });
  return reasons.length > 0 ? reasons.join("; ") : undefined;
}

/** What a session works as, in words: `agent build on model openai/gpt-5`. */
export function workingAsText(facts: SessionFacts | undefined): string {
  return NARROWING.flatMap((kind) => kind.words.workingAs(factOf(facts, kind)) ?? []).join(" on ");
}
