/**
 * What a kind works out once per rule set (an index of its values), kept
 * while the set lives. Keyed by the rules array: the engine replaces it on a
 * reload and never changes it; an array that did change length is indexed again.
 */
import type { ConditionHolder } from "./contract.js";

export function perRuleSet<T>(build: (rules: readonly ConditionHolder[]) => T) {
  const built = new WeakMap<readonly ConditionHolder[], { length: number; value: T }>();
  return (rules: readonly ConditionHolder[]): T => {
    const known = built.get(rules);
    if (known && known.length === rules.length) return known.value;
    const value = build(rules);
    built.set(rules, { length: rules.length, value });
    return value;
  };
}
