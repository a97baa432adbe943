/**
 * The `rule` tool's answer: the model reads a rule by name — an on-request rule from
 * the list in its rules message, or one left out of it for the size budget.
 * An unknown name answers with the names that exist.
 */
import type { Rule } from "../rule/rule.js";
import { renderRulesMessage } from "./message.js";

interface RuleToolAnswer {
  output: string;
  /** The rule read, if the name was known. */
  rule?: Rule;
}

/** Names one answer lists at most: a repository with thousands of rules must not flood the model's context. */
export const MAX_NAMES_LISTED = 500;

export function answerRuleRequest(rules: readonly Rule[], requested: string): RuleToolAnswer {
  const name = requested
    .trim()
    .replace(/^@/, "")
    .replace(/^rule:\/\//, "");
  const rule = rules.find((candidate) => candidate.name === name);
  if (!rule) {
    // The beginning of a name narrows the list; past the bound, the rest are counted.
    const beginning = name === "" ? [] : rules.filter((candidate) => candidate.name.startsWith(name));
    const pool = beginning.length > 0 ? beginning : rules;
    const names = pool
      .slice(0, MAX_NAMES_LISTED)
      .map((known) => known.name)
      .join(", ");
    const more =
      pool.length > MAX_NAMES_LISTED
        ? `, and ${pool.length - MAX_NAMES_LISTED} more (give the beginning of a name to list only those)`
        : "";
    const label = beginning.length > 0 ? `Rules whose names begin with "${name}"` : "Known rules";
    return { output: `There is no rule named "${name}". ${label}: ${names || "none"}${more}.` };
  }
  return {
    output: renderRulesMessage([rule], {
      header: `The project's rule "${rule.name}", binding from now on in this session:`,
    }),
    rule,
  };
}
