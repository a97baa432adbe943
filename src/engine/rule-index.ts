/**
 * The rules in effect as the session model reads them (`RuleSet`): indexed once per load, with the options it needs.
 */
import type { EnforceOption } from "../enforce/violations.js";
import { enforcingRules, type LoadedRules } from "../formats/load.js";
import { hasContentRules } from "../select/content.js";
import { ruleSetIndex } from "../select/rule-set.js";
import type { RuleSet } from "../session/session.js";

export function ruleSetOf(loaded: LoadedRules, options: { maxMessageBytes?: number; enforce: EnforceOption }): RuleSet {
  const { rules: list, warnings, shadowed } = loaded;
  const byName = new Map(list.map((rule) => [rule.name, rule]));
  const held = shadowed.filter((entry) => entry.forbidHolds);
  const forbidding = {
    rules: held.length === 0 ? list : enforcingRules(loaded),
    shadowedBy: new Map(held.map(({ rule, by }) => [rule, by])),
  };
  return {
    list,
    byName,
    names: ruleSetIndex(list).names,
    warnings: warnings.length,
    maxMessageBytes: options.maxMessageBytes,
    forbidding,
    enforce: options.enforce,
    contentRules: hasContentRules(list),
  };
}
