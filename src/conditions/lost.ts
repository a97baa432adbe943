/**
 * A rule with a trigger none of whose values can be used (every glob, or
 * every content pattern, unusable): fail closed. Such a rule must never turn
 * into one that applies more widely than its author wrote. Pure.
 */
import type { MatchMode } from "./contract.js";
import { ACTIVATING, conditionOf, type RuleConditions } from "./list.js";

/**
 * What the rule applies by once the lost trigger is gone: only by the one
 * kind of trigger left (`onlyBy`, a kind with words for it alone), by its
 * other triggers, or when asked for.
 */
export type NowApplies = "by-other-conditions" | "on-request" | "when-mentioned" | { onlyBy: string };

/** What decides a rule's mode besides its triggers. */
export interface LostContext {
  alwaysApply: boolean | undefined;
  match: MatchMode;
  description?: string;
}

/**
 * The rule's conditions once a trigger is lost (it is already absent from
 * `conditions`), and how to say so; undefined when nothing changes
 * (`alwaysApply: true`). The other triggers still apply when one sufficed
 * (`match: any`) and some remain; otherwise the rule waits to be asked for:
 * on request with a description, else mentioned. Its scopes stay.
 */
export function withoutLostCondition(
  conditions: RuleConditions,
  rule: LostContext,
): { conditions: RuleConditions; alwaysApply: boolean | undefined; applies: NowApplies } | undefined {
  if (rule.alwaysApply === true) return undefined;
  const left = ACTIVATING.filter((kind) => conditionOf({ conditions }, kind) !== undefined);
  const [only] = left;
  if (rule.match === "any" && only !== undefined) {
    const applies = left.length === 1 && only.words.alone !== undefined ? { onlyBy: only.kind } : "by-other-conditions";
    return { conditions, alwaysApply: rule.alwaysApply, applies };
  }
  const scopes: Record<string, unknown> = { ...conditions };
  for (const kind of ACTIVATING) delete scopes[kind.kind];
  return {
    conditions: scopes as RuleConditions,
    alwaysApply: false,
    applies: rule.description ? "on-request" : "when-mentioned",
  };
}
