/**
 * What selection needs of a rule set, worked out once per set: each rule's
 * activation mode, the rules by mode, by name and by body. With the trigger kinds' own
 * indexes (conditions/: globs, keywords), an event then looks only at the
 * rules that may apply, not at all.
 *
 * Keyed by the rules array: the engine replaces it on a reload and never
 * changes it. An array that did change length is indexed again.
 */
import { ACTIVATING, conditionOf, hasSome, NARROWING, type AnyActivating } from "../conditions/list.js";
import type { Rule } from "../rule/rule.js";

type ActivationMode = "always" | "conditional" | "on-request" | "manual";

export function activationOf(rule: Rule): ActivationMode {
  if (rule.alwaysApply === true) return "always";
  if (hasSome(rule, ACTIVATING)) return "conditional";
  if (rule.alwaysApply === false) return rule.description ? "on-request" : "manual";
  return "always";
}

/** What selection asks of a rule each time it looks at it: its mode, whether it has a scope, its triggers' values. */
export interface RuleShape {
  mode: ActivationMode;
  scoped: boolean;
  triggers: ReadonlyArray<{ kind: AnyActivating; value: unknown }>;
}

export function shapeOf(rule: Rule): RuleShape {
  const triggers: { kind: AnyActivating; value: unknown }[] = [];
  for (const kind of ACTIVATING) {
    const value = conditionOf(rule, kind);
    if (value !== undefined) triggers.push({ kind, value });
  }
  return { mode: activationOf(rule), scoped: hasSome(rule, NARROWING), triggers };
}

interface RuleSetIndex {
  /** Each rule's shape, by place: worked out once, not at every event. */
  shapes: readonly RuleShape[];
  /** Where the always-on rules are in the array, in order. */
  always: readonly number[];
  /** Where the conditional rules are, in order. */
  conditional: readonly number[];
  /** The on-request rules, in order, with the conditional ones also listed on request (`requestable`) while their condition has not held. */
  onRequest: readonly Rule[];
  names: ReadonlySet<string>;
  /** Where each name is (more than one place when two rules share it). */
  positions: ReadonlyMap<string, readonly number[]>;
  /**
   * The rules with the same body as another (rulesync and ruler copy one rule to every tool's folder): each such rule,
   * with every rule of its body in set order (itself included). Most sets have none: the map is empty.
   */
  twins: ReadonlyMap<Rule, readonly Rule[]>;
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
  const positions = new Map<string, number[]>();
  // The body is the identity: the text the model would read twice (`content` is trimmed, its line endings normalised).
  // Rules are first grouped by a short sketch of it, so that a whole body is hashed only when two sketches agree.
  const bySketch = new Map<string, Rule[]>();
  const shapes = rules.map(shapeOf);
  rules.forEach((rule, i) => {
    const mode = (shapes[i] as RuleShape).mode;
    if (mode === "always") always.push(i);
    else if (mode === "conditional") conditional.push(i);
    if (mode === "on-request" || (mode === "conditional" && rule.requestable && rule.description)) onRequest.push(rule);
    const places = positions.get(rule.name);
    if (places) places.push(i);
    else positions.set(rule.name, [i]);
    const sketch = sketchOf(rule.content);
    const alike = bySketch.get(sketch);
    if (alike) alike.push(rule);
    else bySketch.set(sketch, [rule]);
  });
  const twins = new Map<Rule, readonly Rule[]>();
  for (const alike of bySketch.values()) {
    if (alike.length < 2) continue;
    const byBody = new Map<string, Rule[]>();
    for (const rule of alike) {
      const same = byBody.get(rule.content);
      if (same) same.push(rule);
      else byBody.set(rule.content, [rule]);
    }
    for (const same of byBody.values()) if (same.length > 1) for (const rule of same) twins.set(rule, same);
  }
  return { shapes, always, conditional, onRequest, names: new Set(positions.keys()), positions, twins };
}

/** Equal bodies have equal sketches: the length, the start and the end. */
const sketchOf = (body: string): string =>
  body.length <= 128 ? body : `${body.length}\0${body.slice(0, 48)}\0${body.slice(-48)}`;

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
