/**
 * The rules a session does not hold yet, given what is now in its context:
 * the rules message a step gives, and the activations it records. Pure.
 */
import { ACTIVATING, factOf, factsIn, NARROWING, type SessionFacts } from "../conditions/list.js";
import { composeNeeds, type ComposedMessage } from "../render/compose.js";
import type { SelectionContext } from "../select/active.js";
import { windowNeeds } from "../select/window-needs.js";
import { matched, withActivated } from "./activation.js";
import type { Note, RuleSet, SessionState } from "./session.js";

interface Composition {
  state: SessionState;
  composed?: ComposedMessage;
  notes: Note[];
}

export function composeFor(before: SessionState, rules: RuleSet, prompt?: string): Composition {
  const { list } = rules;
  // Only files new since the last look are matched: an event's cost does not grow with the working set.
  const activation = matched(before.activation, list);
  const state = activation === before.activation ? before : { ...before, activation };
  const window = state.window;
  // The session's facts: those the host gives (its agent, its model) and those read from the project (its branch).
  const facts = { ...factsIn(state), ...state.observed };
  const context: SelectionContext = {
    files: [],
    fileMatches: activation.fileMatches,
    contentMatches: activation.contentMatches,
    prompt,
    mentioned: activation.mentioned,
    activated: activation.activated,
    facts,
  };
  // The window model is immutable and the activation sets only grow (a reload replaces `list`): equal counts, equal answer.
  const seen: Record<string, unknown> = {
    rules: list,
    delivered: window.delivered,
    mentioned: activation.mentioned.size,
    activated: activation.activated.size,
    listed: window.listedOnRequest,
    scopedListed: window.listed,
    paused: window.paused,
    ruleTool: rules.ruleTool,
    ...conditionsSeen(context, facts),
  };
  const last = state.quiet;
  const unchanged = last !== undefined && Object.keys(seen).every((key) => last[key] === seen[key]);
  if (unchanged && !prompt) return { state, notes: [] };
  const options = {
    delivered: window.delivered,
    listOnRequest: !window.listedOnRequest,
    listed: window.listed,
    paused: window.paused,
    maxBytes: rules.maxMessageBytes,
    ruleTool: rules.ruleTool,
  };
  const needs = windowNeeds(list, context, options);
  const composed = composeNeeds(list, needs, context, options);
  // A rule whose text goes as another's is activated all the same: it stays active after a compaction, and its text
  // goes when the rule carrying it no longer does (paused, deleted, changed).
  const fresh = [...(composed?.included ?? []), ...needs.sameText].filter(
    ({ rule, reason }) => reason.kind !== "always" && !activation.activated.has(rule.name),
  );
  if (!composed && fresh.length === 0) return { state: { ...state, quiet: seen }, notes: [] };
  const activated = withActivated(
    activation,
    fresh.map(({ rule, reason }) => ({ name: rule.name, reason })),
  );
  return {
    state: { ...state, activation: activated, quiet: undefined },
    composed,
    notes: fresh.map(({ rule, reason }) => ({ kind: "activated", rule: rule.name, reason })),
  };
}

/**
 * Each condition kind's part of the memo's key, under its name: what of
 * the session a trigger reads (its records' sizes), and each scope's fact as
 * written. A kind left out here would leave a change unseen.
 */
export function conditionsSeen(context: SelectionContext, facts: SessionFacts): Record<string, unknown> {
  const seen: Record<string, unknown> = {};
  for (const kind of ACTIVATING) if (kind.memo) seen[`condition ${kind.kind}`] = kind.memo(context);
  for (const kind of NARROWING) {
    const fact = factOf(facts, kind);
    seen[`condition ${kind.kind}`] = fact === undefined ? undefined : kind.words.written(fact);
  }
  return seen;
}
