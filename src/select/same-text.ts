/**
 * One text, delivered once. Tools kept in sync by rulesync or ruler hold the
 * same rule under several names (a Cursor and a Claude Code copy): each
 * copy keeps its own conditions, but the model needs its text once. Among
 * the active rules a window lacks, a rule whose body the window holds (given
 * earlier, and not said to be paused) or an earlier rule of this message
 * carries is not given: it is named as the same text as that rule. Pure.
 *
 * A copy is never held by the window: it is looked at again at each message,
 * so when the rule that carries its text is paused, deleted or changed, the
 * copy's own text goes then.
 */
import type { Rule } from "../rule/rule.js";
import type { ActiveRule } from "./active.js";
import type { ActivationReason } from "./reasons.js";

/** An active rule not given: the model gets (or holds) its text as `as`. */
export interface SameTextRule {
  rule: Rule;
  reason: ActivationReason;
  /** The rule whose block carries the text: given in this message, or held by the window. */
  as: Rule;
}

interface GivenOnce {
  /** The active rules to give, in message order. */
  active: ActiveRule[];
  sameText: SameTextRule[];
}

/**
 * The active rules with each body once: the first by precedence among the active copies (the set's order, as
 * shadowing ranks rules), unless the window holds that body already. `twins`: the rule set's rules by body
 * (select/rule-set.ts), each body's rules in set order; `holds`: the window holds this very rule and the model has
 * not been told it does not apply; `heldAsOther`: the window holds another version of the rule's name (its file
 * changed), which the model must be told of, so it goes whatever its text.
 */
export function givenOnce(
  active: ActiveRule[],
  twins: ReadonlyMap<Rule, readonly Rule[]>,
  holds: (rule: Rule) => boolean,
  heldAsOther: (rule: Rule) => boolean,
): GivenOnce {
  if (twins.size === 0) return { active, sameText: [] };
  const activeCopies = new Set<Rule>();
  for (const { rule } of active) if (twins.has(rule)) activeCopies.add(rule);
  if (activeCopies.size === 0) return { active, sameText: [] };
  // By body (its twins' array): the rule that carries it. A rule whose file changed goes whatever its text (the model
  // is told the version it holds no longer applies), and carries it; else the copy the window holds; else the first
  // active copy by precedence.
  const carrier = new Map<readonly Rule[], Rule>();
  for (const rule of activeCopies) {
    const same = twins.get(rule) as readonly Rule[];
    if (!carrier.has(same) && heldAsOther(rule)) carrier.set(same, rule);
  }
  for (const rule of activeCopies) {
    const same = twins.get(rule) as readonly Rule[];
    if (carrier.has(same)) continue;
    carrier.set(same, same.find(holds) ?? (same.find((copy) => activeCopies.has(copy)) as Rule));
  }
  const given: ActiveRule[] = [];
  const sameText: SameTextRule[] = [];
  for (const entry of active) {
    const same = twins.get(entry.rule);
    const as = same && carrier.get(same);
    if (as === undefined || as === entry.rule || heldAsOther(entry.rule)) given.push(entry);
    else sameText.push({ rule: entry.rule, reason: entry.reason, as });
  }
  return { active: given, sameText };
}
