/**
 * The rules a session does not hold yet, given what is now in its context:
 * the rules message a step gives, and the activations it records. Pure.
 */
import { composeRulesMessage, type ComposedMessage } from "../render/compose.js";
import { modelName } from "../select/scope.js";
import { matched, withActivated } from "./activation.js";
import type { Note, RuleSet, SessionState } from "./session.js";

export interface Composition {
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
  // The window model is immutable and the activation sets only grow (a reload replaces `list`): equal counts, equal answer.
  const seen = {
    rules: list,
    delivered: window.delivered,
    files: activation.fileMatches.size,
    contents: activation.contentMatches.size,
    mentioned: activation.mentioned.size,
    activated: activation.activated.size,
    listed: window.listedOnRequest,
    scopedListed: window.listed,
    paused: window.paused,
    agent: state.agent,
    model: state.model && modelName(state.model),
    ruleTool: rules.ruleTool,
  };
  const last = state.quiet;
  const unchanged =
    last !== undefined && (Object.keys(seen) as Array<keyof typeof seen>).every((key) => last[key] === seen[key]);
  if (unchanged && !prompt) return { state, notes: [] };
  const composed = composeRulesMessage(
    list,
    {
      files: [],
      fileMatches: activation.fileMatches,
      contentMatches: activation.contentMatches,
      prompt,
      mentioned: activation.mentioned,
      activated: activation.activated,
      workingAs: { agent: state.agent, model: state.model },
    },
    {
      delivered: window.delivered,
      listOnRequest: !window.listedOnRequest,
      listed: window.listed,
      paused: window.paused,
      maxBytes: rules.maxMessageBytes,
      ruleTool: rules.ruleTool,
    },
  );
  if (!composed) return { state: { ...state, quiet: seen }, notes: [] };
  const fresh = composed.included.filter(
    ({ rule, reason }) => reason.kind !== "always" && !activation.activated.has(rule.name),
  );
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
