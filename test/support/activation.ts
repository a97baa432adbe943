/** Activation reasons in words, for tests that check them as the engine's debug log and session report print them. */
import type { Rule } from "../../src/rule/rule.js";
import { whyRuleApplies, type SelectionContext } from "../../src/select/active.js";
import { reasonText } from "../../src/select/reasons.js";

/** `whyRuleApplies` through `reasonText`: `file src/a.ts matched src/**\/*.ts`, or undefined when the rule does not apply. */
export function whyText(rule: Rule, context: SelectionContext): string | undefined {
  const reason = whyRuleApplies(rule, context);
  return reason && reasonText(reason);
}
