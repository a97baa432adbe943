/**
 * Loading the rule set: discovery from every enabled source, then one
 * precedence. The engine and the command line both load rules through here,
 * so they cannot disagree about which rules exist.
 */
import type { Rule, RuleWarning } from "../rule/rule.js";
import { discoverRules, type DiscoveryContext } from "./discover.js";
import { nativeSource } from "./native.js";
import type { FoundRuleFile, RuleSource } from "./source.js";

export interface ShadowedRule {
  rule: Rule;
  /** The rule of the same name that wins. */
  by: Rule;
}

export interface LoadedRules {
  /** The rules in effect, in message order: global before project, then priority (high first), then name. */
  rules: Rule[];
  shadowed: ShadowedRule[];
  warnings: RuleWarning[];
  /** Every rule file found, including those skipped. */
  files: FoundRuleFile[];
}

export const ALL_SOURCES: RuleSource[] = [nativeSource];

export interface LoadOptions {
  /** Ids of the sources to read; all when undefined. */
  sources?: readonly string[];
}

export async function loadRules(context: DiscoveryContext, options: LoadOptions = {}): Promise<LoadedRules> {
  const sources = ALL_SOURCES.filter((source) => !options.sources || options.sources.includes(source.id));
  const discovery = await discoverRules(context, sources);
  return { rules: inMessageOrder(discovery.rules), shadowed: [], warnings: discovery.warnings, files: discovery.files };
}

/** Global before project, then priority (high first), then name: the same order every time. */
export function inMessageOrder(rules: readonly Rule[]): Rule[] {
  const scopeRank = (rule: Rule) => (rule.scope === "global" ? 0 : 1);
  return [...rules].sort((a, b) => scopeRank(a) - scopeRank(b) || b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
