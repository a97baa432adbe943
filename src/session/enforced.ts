/**
 * The session's side of rules that hold: a call that broke rules is refused
 * (`block`) or runs with the rules in its result (`warn`). Either way the
 * model is told which rule, which pattern and which line; the rule's text
 * comes with it once per context window, after which the window holds it like
 * any delivered rule (the Rules panel lists it, `blocked write src/a.ts`). It
 * is not activated for the session: after a compaction it comes back only if
 * it applies again. Pure.
 */
import type { Violation } from "../enforce/violations.js";
import { brokenRulesWarning, refusalText, uniqueRules } from "../render/refusal.js";
import type { Rule } from "../rule/rule.js";
import type { WeakenedRule } from "../enforce/weakened.js";
import { ruleTokens } from "../render/tokens.js";
import { weakenedText } from "../render/weakened.js";
import { enforcedMarker, type RulesMarker, weakenedMarker } from "./marker.js";
import type { Effect, Step } from "./effects.js";
import type { SessionEvent } from "./events.js";
import type { RulesAnswer, SessionState } from "./session.js";
import { advanceWindow } from "./window.js";

/**
 * Calls whose `warn` rules wait for their result, per session: a call whose result never comes must not keep its note
 * for ever.
 */
export const MAX_WARNED_CALLS = 32;

export function callChecked(
  state: SessionState,
  { tool, callID, counted, violations, weakened = [] }: Extract<SessionEvent, { type: "call-checked" }>,
): Step {
  const blocked = violations.some((violation) => violation.mode === "block");
  // A refused call writes nothing: it weakens nothing either.
  if (!blocked && weakened.length > 0)
    return weakenedBy(
      callChecked(state, { type: "call-checked", tool, callID, counted, violations }),
      callID ?? tool,
      tool,
      weakened,
    );
  if (violations.length === 0) return { state, effects: [{ type: "answer" }] };
  // A refused call reports every rule it broke; a call that runs, its warnings.
  const broken = blocked ? violations : violations.filter((violation) => violation.mode === "warn");
  const rules = uniqueRules(broken);
  // A shadowed rule whose forbids hold comes with its text each time: the window holds the rule that shadows it under
  // that name.
  const shadowed = new Set(broken.flatMap((violation) => (violation.shadowedBy ? [violation.rule] : [])));
  // Once per window: a rule the window holds as it is now is named, not repeated.
  const withText = new Set(
    rules
      .filter((rule) => shadowed.has(rule) || state.window.delivered.get(rule.name) !== rule)
      .map((rule) => rule.name),
  );
  let next = state;
  for (const rule of rules) if (withText.has(rule.name) && !shadowed.has(rule)) next = given(next, rule);
  const mode = blocked ? "block" : "warn";
  const answer: RulesAnswer = {
    text: blocked ? refusalText(broken, withText) : brokenRulesWarning(broken, withText),
    marker: enforcedMarker(firstFiles(broken), mode, tool),
  };
  const note: Effect = {
    type: "note",
    note: {
      kind: "enforced",
      mode,
      tool,
      ...(counted ? { call: counted.number } : {}),
      given: [...withText],
      broken: broken.map(({ rule, pattern, file, lineNumber }) => ({
        rule: rule.name,
        pattern: pattern.written,
        ...(file === undefined ? {} : { file }),
        ...(lineNumber === undefined ? {} : { lineNumber }),
      })),
    },
  };
  if (blocked) return { state: next, effects: [note, { type: "answer", refusal: answer }] };
  return { state: waiting(next, callID ?? tool, answer), effects: [note, { type: "answer" }] };
}

/**
 * A call that ran and weakened rules that forbid: the log says so, and its result tells the model (and the Rules panel)
 * after any warning.
 */
function weakenedBy(step: Step, key: string, tool: string, weakened: readonly WeakenedRule[]): Step {
  const note: RulesAnswer = { text: weakenedText(weakened), marker: weakenedMarker(weakened.map(({ name }) => name)) };
  const earlier = step.state.warned?.get(key);
  return {
    state: waiting(step.state, key, earlier ? withWarning(earlier, note) : note),
    effects: [{ type: "note", note: { kind: "weakened", tool, weakened } }, ...step.effects],
  };
}

/**
 * The session with `answer` waiting for the result of call `key`; past MAX_WARNED_CALLS the oldest is forgotten (a call
 * whose result never comes).
 */
function waiting(state: SessionState, key: string, answer: RulesAnswer): SessionState {
  const warned = new Map(state.warned ?? []);
  warned.set(key, answer);
  while (warned.size > MAX_WARNED_CALLS) warned.delete(warned.keys().next().value as string);
  return { ...state, warned };
}

/**
 * A subagent's session left alone whose call broke no `warn` rule: its result carries nothing, and needs no fresh
 * rules.
 */
export const resultLeftAlone = (state: SessionState, key: string): boolean =>
  state.window.stage === "ignored" && state.warned?.has(key) !== true;

/** The rules a `warn` rule puts into this call's result, taken out of the session. */
export function takeWarning(state: SessionState, key: string): { state: SessionState; warning?: RulesAnswer } {
  const warning = state.warned?.get(key);
  if (!warning) return { state };
  const warned = new Map(state.warned);
  warned.delete(key);
  return { state: { ...state, warned: warned.size === 0 ? undefined : warned }, warning };
}

/** A tool result's rules and the warning that goes after them, as one answer. */
export function withWarning(rules: RulesAnswer | undefined, warning: RulesAnswer): RulesAnswer {
  if (!rules) return warning;
  const names = new Set(rules.marker.rules);
  const added = warning.marker.rules
    .map((name, i) => ({ name, why: warning.marker.why?.[i] }))
    .filter(({ name }) => !names.has(name));
  const marker: RulesMarker = {
    ...rules.marker,
    rules: [...rules.marker.rules, ...added.map(({ name }) => name)],
    ...(rules.marker.why ? { why: [...rules.marker.why, ...added.flatMap(({ why }) => (why ? [why] : []))] } : {}),
  };
  return {
    text: `${rules.text}\n\n${warning.text}`,
    marker: warning.marker.weakened
      ? { ...marker, weakened: [...(rules.marker.weakened ?? []), ...warning.marker.weakened] }
      : marker,
  };
}

/** Each rule broken, once, with the file of its first line (none for a command) and its cost in the window. */
function firstFiles(broken: readonly Violation[]): Array<{ name: string; file?: string; tokens: number }> {
  const first = new Map<string, { rule: Rule; file?: string }>();
  for (const { rule, file } of broken) if (!first.has(rule.name)) first.set(rule.name, { rule, file });
  return [...first.values()].map(({ rule, file }) => ({
    name: rule.name,
    ...(file === undefined ? {} : { file }),
    tokens: ruleTokens(rule),
  }));
}

/** The window holds the rule's text from here on, as a rule read by name does. */
const given = (state: SessionState, rule: Rule): SessionState => {
  const window = advanceWindow(state.window, { type: "rule-read", rule });
  return window === state.window ? state : { ...state, window };
};
