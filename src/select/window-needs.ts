/**
 * What a session's context window needs from the rule set now: the active
 * rules it does not hold (each text once: same-text.ts), the on-request rules
 * to list, and what it must be told of rules it holds (changed, deleted,
 * paused or resumed by a switch of agent or model). Pure; render/compose.ts
 * makes the message.
 */
import type { Rule } from "../rule/rule.js";
import { activeRulesAmong, isExplicit, type ActiveRule, type SelectionContext } from "./active.js";
import { activationOf, ruleSetIndex } from "./rule-set.js";
import { givenOnce, type SameTextRule } from "./same-text.js";
import { inScope, isScoped, scopeMatch } from "./scope.js";

/** What the window holds and has been told. */
export interface WindowHolding {
  /**
   * The rules the session holds in its context window, by name, as the Rule
   * object it was given. A rule is held only if it is that very object (the
   * loader keeps an unchanged rule's object): a new object under a held name
   * is a changed file, delivered again with a notice; a held name no rule has
   * any more is a deleted file, announced.
   */
  delivered?: ReadonlyMap<string, Rule>;
  /** List the on-request rules (the first message of a window does). */
  listOnRequest?: boolean;
  /** On-request rules with `agents:` or `models:` the window already lists: listed when they come into scope, whether or not the list was given. */
  listed?: ReadonlySet<string>;
  /** Rules in the window (given or listed) the model has been told do not apply now (another agent or model). */
  paused?: ReadonlySet<string>;
  /**
   * The host offers the model the `rule` tool (the default). Without it the
   * on-request rules cannot be read on request: each is given whole, once,
   * like an active rule (`on-request`), and none is listed to be read.
   */
  ruleTool?: boolean;
}

export interface WindowNeeds {
  /** Active rules the window does not hold, in message order; without the rule tool, the on-request rules after them. */
  active: ActiveRule[];
  /** Active rules the window does not hold whose text it holds, or `active` carries, as another rule (same-text.ts). */
  sameText: SameTextRule[];
  /** By active rule: the window holds another version of it (its file changed). */
  changed: boolean[];
  /** On-request rules to list. */
  onRequest: Rule[];
  /** Held names no rule has any more: deleted rule files. */
  removed: string[];
  /** Rules in the window that no longer apply after a switch of agent or model. */
  paused: string[];
  /** Paused rules that apply again. */
  resumed: string[];
}

export function windowNeeds(rules: readonly Rule[], context: SelectionContext, window: WindowHolding): WindowNeeds {
  const delivered: ReadonlyMap<string, Rule> = window.delivered ?? new Map();
  const held = (rule: Rule) => delivered.get(rule.name) === rule;
  const index = ruleSetIndex(rules);
  const active = activeRulesAmong(rules, context, held);
  const alreadyListed = window.listed ?? new Set<string>();
  const facts = context.facts;
  // The list goes once per window; a rule for another agent or model joins it when it comes into scope.
  const given = new Set(active.map(({ rule }) => rule));
  if (window.ruleTool === false) {
    // Only the rules that have no other way in: a conditional one also listed on request still comes with its condition.
    for (const rule of index.onRequest) {
      if (activationOf(rule) !== "on-request" || held(rule) || given.has(rule) || !inScope(rule, facts)) continue;
      const scope = isScoped(rule) ? scopeMatch(rule, facts) : undefined;
      active.push(scope ? { rule, reason: { kind: "on-request" }, scope } : { rule, reason: { kind: "on-request" } });
    }
  }
  const onRequest =
    window.ruleTool === false
      ? []
      : index.onRequest.filter(
          (rule) =>
            !held(rule) &&
            !given.has(rule) &&
            inScope(rule, facts) &&
            (isScoped(rule) ? !alreadyListed.has(rule.name) : window.listOnRequest === true),
        );
  const removed = [...delivered.keys()].filter((name) => !index.names.has(name));
  const { paused, resumed } = switchedRules(
    rules,
    context,
    delivered,
    alreadyListed,
    window.paused ?? new Set(),
    active,
  );
  // A twin the model has been told does not apply (or is told now) carries nothing: the copy's own text goes.
  const pausedNow =
    index.twins.size > 0 && (window.paused?.size || paused.length > 0) ? new Set(window.paused) : undefined;
  if (pausedNow) {
    for (const name of resumed) pausedNow.delete(name);
    for (const name of paused) pausedNow.add(name);
  }
  const once = givenOnce(
    active,
    index.twins,
    (rule) => held(rule) && !pausedNow?.has(rule.name),
    (rule) => delivered.has(rule.name),
  );
  const changed = once.active.map(({ rule }) => delivered.has(rule.name));
  return { active: once.active, sameText: once.sameText, changed, onRequest, removed, paused, resumed };
}

/**
 * The rules in the window whose scope a switch of agent or model changed:
 * given or listed for another agent or model and not yet said not to apply
 * (`paused`), or said so and in scope again, their text still in the window
 * (`resumed`; a rule whose file changed meanwhile is given again instead).
 * Rules asked for by name are not for one agent: never paused.
 */
function switchedRules(
  rules: readonly Rule[],
  context: SelectionContext,
  delivered: ReadonlyMap<string, Rule>,
  listed: ReadonlySet<string>,
  wasPaused: ReadonlySet<string>,
  active: readonly ActiveRule[],
): { paused: string[]; resumed: string[] } {
  const index = ruleSetIndex(rules);
  const given = new Set(active.map(({ rule }) => rule.name));
  const paused: string[] = [];
  const resumed: string[] = [];
  for (const name of new Set([...delivered.keys(), ...listed])) {
    const rule = rules[index.positions.get(name)?.[0] ?? -1];
    // A deleted rule is announced as deleted; one given again in this message needs no word.
    if (!rule || given.has(name)) continue;
    const explicit = context.mentioned?.has(name) || isExplicit(context.activated?.get(name));
    const out = isScoped(rule) && !explicit && !inScope(rule, context.facts);
    if (out && !wasPaused.has(name)) paused.push(name);
    else if (!out && wasPaused.has(name)) resumed.push(name);
  }
  return { paused, resumed };
}
