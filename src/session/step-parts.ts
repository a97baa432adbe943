/** What the step files share: moving the window, and the shapes of a step's answer. Pure. */
import type { Effect, Step } from "./effects.js";
import type { Note, RuleSet, SessionState, WindowView } from "./session.js";
import { advanceWindow } from "./window.js";
import type { WindowEvent } from "./window-state.js";
import { servedSession } from "./window-queries.js";

export const moved = (state: SessionState, event: WindowEvent): SessionState => {
  const window = advanceWindow(state.window, event);
  return window === state.window ? state : { ...state, window };
};
export const only = (state: SessionState): Step => ({ state, effects: [] });
export const asking = (state: SessionState, effect: Effect): Step => ({ state, effects: [effect] });
export const noted = (notes: readonly Note[]): Effect[] => notes.map((note) => ({ type: "note", note }));
/** `step` with `effects` before its own. */
export const after = (effects: readonly Effect[], step: Step): Step => ({
  state: step.state,
  effects: [...effects, ...step.effects],
});
export const names = (composed: { included: ReadonlyArray<{ rule: { name: string } }> }) =>
  composed.included.map(({ rule }) => rule.name);
export const markersIn = (view: WindowView) => view.rules.map(({ marker }) => marker);

/** What a composed message's marker says of its rule set: its warnings, and its shadowed rules whose forbids hold. */
export const markerContext = (rules: RuleSet) => ({
  warnings: rules.warnings,
  held: [...(rules.forbidding?.shadowedBy?.keys() ?? [])].map((rule) => rule.name),
});

/** The session gets rules now: some exist, and it is not a subagent's left alone. */
export const served = (state: SessionState, rules: RuleSet): boolean => servedSession(state.window, rules.list.length);
