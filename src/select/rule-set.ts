/**
 * What selection needs of a rule set, worked out once per set: each rule's
 * activation mode, the rules by mode and by name, and indexes of keywords and
 * globs. An event then looks only at the rules that may apply, not at all.
 *
 * Keyed by the rules array: the engine replaces it on a reload and never
 * changes it. An array that did change length is indexed again.
 */
import type { Rule } from "../rule/rule.js";
import { globIndex, type GlobIndex } from "../glob/index-by-part.js";
import { keywordIndex, type KeywordIndex } from "./keywords.js";

export type ActivationMode = "always" | "conditional" | "on-request" | "manual";

export function activationOf(rule: Rule): ActivationMode {
  if (rule.alwaysApply === true) return "always";
  if (rule.globs.length > 0 || rule.keywords.length > 0 || rule.fileContains !== undefined) return "conditional";
  if (rule.alwaysApply === false) return rule.description ? "on-request" : "manual";
  return "always";
}

export interface RuleSetIndex {
  /** Where the always-on rules are in the array, in order. */
  always: readonly number[];
  /** Where the conditional rules are, in order. */
  conditional: readonly number[];
  /** The on-request rules, in order, with the conditional ones also listed on request (`requestable`) while their condition has not held. */
  onRequest: readonly Rule[];
  /** Where the rules with content patterns are, in order. */
  contentRules: readonly number[];
  names: ReadonlySet<string>;
  /** Where each name is (more than one place when two rules share it). */
  positions: ReadonlyMap<string, readonly number[]>;
  /** The conditional rules' keywords, each filed with its rule's place; made when first asked for. */
  keywords(): KeywordIndex<number>;
  /** The globs of every rule that has some, each rule filed with its place; made when first asked for. */
  globs(): GlobIndex<number>;
}

const indexes = new WeakMap<readonly Rule[], { length: number; index: RuleSetIndex }>();

export function ruleSetIndex(rules: readonly Rule[]): RuleSetIndex {
  const known = indexes.get(rules);
  if (known && known.length === rules.length) return known.index;
  const index = buildIndex(rules);
  indexes.set(rules, { length: rules.length, index });
  return index;
}

function buildIndex(rules: readonly Rule[]): RuleSetIndex {
  const always: number[] = [];
  const conditional: number[] = [];
  const onRequest: Rule[] = [];
  const contentRules: number[] = [];
  const positions = new Map<string, number[]>();
  rules.forEach((rule, i) => {
    const mode = activationOf(rule);
    if (mode === "always") always.push(i);
    else if (mode === "conditional") conditional.push(i);
    if (mode === "on-request" || (mode === "conditional" && rule.requestable && rule.description)) onRequest.push(rule);
    if (mode === "conditional" && rule.fileContains !== undefined) contentRules.push(i);
    const places = positions.get(rule.name);
    if (places) places.push(i);
    else positions.set(rule.name, [i]);
  });
  let keywords: KeywordIndex<number> | undefined;
  let globs: GlobIndex<number> | undefined;
  return {
    always,
    conditional,
    onRequest,
    contentRules,
    names: new Set(positions.keys()),
    positions,
    keywords() {
      if (!keywords) {
        keywords = keywordIndex();
        for (const i of conditional) for (const keyword of (rules[i] as Rule).keywords) keywords.add(keyword, i);
      }
      return keywords;
    },
    globs() {
      if (!globs) {
        globs = globIndex();
        rules.forEach((rule, i) => {
          if (rule.globs.length > 0) globs?.add(rule.globs, i);
        });
      }
      return globs;
    },
  };
}

/** The places in `first` and `more` (both ascending, `more` may repeat), merged in order, each once. */
export function mergePlaces(first: readonly number[], more: readonly number[]): number[] {
  const merged: number[] = [];
  let i = 0;
  let j = 0;
  while (i < first.length || j < more.length) {
    const next =
      j >= more.length || (i < first.length && (first[i] as number) <= (more[j] as number))
        ? (first[i++] as number)
        : (more[j++] as number);
    if (merged[merged.length - 1] !== next) merged.push(next);
  }
  return merged;
}
