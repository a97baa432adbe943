/** The window model's transitions (`window-state.ts` says what it holds). Pure. */
import type { ComposedMessage } from "../render/compose.js";
import type { Rule } from "../rule/rule.js";
import { isScoped } from "../select/scope.js";
import { differs } from "../rule/rule.js";
import {
  ATTEMPTS_REMEMBERED,
  type Attempt,
  type CurrentRules,
  type FoundRulesMessage,
  type WindowEvent,
  type WindowState,
} from "./window-state.js";

export function advanceWindow(state: WindowState, event: WindowEvent): WindowState {
  switch (event.type) {
    case "created":
      if (event.ignored) return { ...state, stage: "ignored" };
      return state.stage === "unread" && !event.hasHistory ? { ...state, stage: "empty" } : state;
    case "compaction-started":
      return { ...state, compacting: true };
    case "compacted":
      return {
        ...state,
        compactions: state.compactions + 1,
        delivered: new Map(),
        listedOnRequest: false,
        listed: new Set(),
        paused: new Set(),
        stage: state.stage === "ignored" ? "ignored" : "empty",
        windowStart: event.windowStart,
        startedAt: event.at,
        rulesCreated: undefined,
        compacting: false,
        unannounced: state.unannounced + (event.announced ? 0 : 1),
      };
    case "compaction-announced":
      return { ...state, unannounced: Math.max(0, state.unannounced - 1) };
    case "compaction-abandoned":
      return { ...state, compacting: false };
    case "overtaken":
      // A prompt still on its way would land after what the model read: hidden when it lands.
      return state.stage === "empty" ? { ...state, stage: "owed", attempts: supersede(state.attempts) } : state;
    case "prompt-sent": {
      const attempts = new Map(state.attempts).set(event.delivery, {
        composed: event.composed,
        status: "pending",
        compactions: state.compactions,
      });
      // Oldest first out: a Map iterates in insertion order.
      if (attempts.size > ATTEMPTS_REMEMBERED) attempts.delete(attempts.keys().next().value as string);
      return { ...state, attempts };
    }
    case "prompt-refused": {
      const attempts = new Map(state.attempts);
      attempts.delete(event.delivery);
      return { ...state, attempts };
    }
    case "prompt-stored": {
      const attempt = state.attempts.get(event.delivery);
      // Earlier attempts that may still land are copies now.
      const attempts = supersede(state.attempts, event.delivery);
      if (attempt?.status === "superseded") return { ...state, attempts };
      if (attempt) attempts.set(event.delivery, { ...attempt, status: "landed" });
      // A compaction while it was on its way: the window it was for is gone.
      if ((attempt?.compactions ?? event.compactions) !== state.compactions) return { ...state, attempts };
      return {
        ...hold(state, attempt?.composed ?? event.composed, event.current),
        attempts,
        stage: "held",
        rulesCreated: event.created,
      };
    }
    case "prompt-seen": {
      const attempt = event.delivery === undefined ? undefined : state.attempts.get(event.delivery);
      if (attempt?.status !== "pending") return state;
      // Composed for a window a compaction has ended since, and dated before the plugin knew: the host may have put
      // it in either window, and the new window's delivery reads the history instead. Dated from then on, it is in
      // the new window.
      const inWindow =
        attempt.compactions === state.compactions ||
        (state.startedAt !== undefined && event.created >= state.startedAt);
      const attempts = new Map(state.attempts).set(event.delivery as string, {
        ...attempt,
        status: "landed",
        compactions: inWindow ? state.compactions : attempt.compactions,
      });
      if (!inWindow) return { ...state, attempts };
      return { ...hold(state, attempt.composed, event.current), attempts, stage: "held", rulesCreated: event.created };
    }
    case "nothing-to-send":
      return state.stage === "ignored" ? state : { ...state, stage: "held" };
    case "window-read": {
      let next = state;
      for (const found of event.found) {
        // A timed-out attempt of this plugin: what it carried. Otherwise the rules it names, as they are now.
        const attempt = found.delivery === undefined ? undefined : state.attempts.get(found.delivery);
        next = attempt ? hold(next, attempt.composed, event.current) : holdNamed(next, found, event.current);
      }
      if (event.found.length === 0) return next;
      next = { ...next, listedOnRequest: true };
      return event.settles ? { ...next, attempts: supersede(next.attempts), stage: "held" } : next;
    }
    case "user-message": {
      const next = event.composed ? hold(state, event.composed, event.current) : state;
      return { ...next, attempts: supersede(next.attempts), stage: "held" };
    }
    case "tool-result":
      return { ...hold(state, event.composed, event.current), stage: state.stage === "owed" ? "held" : state.stage };
    case "rule-read":
      // Read by name: it applies whatever the agent, and is not paused.
      return {
        ...state,
        delivered: new Map(state.delivered).set(event.rule.name, event.rule),
        ...scopeChanges(state, { resumed: [event.rule.name] }),
      };
    case "reloaded": {
      const delivered = new Map<string, Rule>();
      for (const [name, given] of state.delivered) delivered.set(name, currentVersion(given, event.current));
      return { ...state, delivered };
    }
  }
}

// ---------------------------------------------------------------- helpers

/** A rule the model holds, as recorded: its current object when its text is unchanged, so it is not sent again. */
function currentVersion(given: Rule, current: CurrentRules): Rule {
  const now = current.get(given.name);
  return now && !differs(given, now) ? now : given;
}

/** Records what a message carried: a rule edited while it was on its way keeps its old version, so it goes again. */
function hold(state: WindowState, composed: ComposedMessage, current: CurrentRules): WindowState {
  const delivered = new Map(state.delivered);
  for (const { rule } of composed.included) delivered.set(rule.name, currentVersion(rule, current));
  for (const name of composed.removed) delivered.delete(name);
  const scoped = composed.onRequest.filter(isScoped).map((rule) => rule.name);
  const given = composed.included.map(({ rule }) => rule.name);
  return {
    ...state,
    delivered,
    listedOnRequest: state.listedOnRequest || composed.onRequest.length > 0,
    ...scopeChanges(state, {
      listed: scoped,
      paused: composed.paused,
      resumed: [...composed.resumed, ...given, ...composed.removed],
    }),
  };
}

/** What a rules message found in the history carried, by name, as the rules are now. */
function holdNamed(state: WindowState, found: FoundRulesMessage, current: CurrentRules): WindowState {
  const delivered = new Map(state.delivered);
  for (const name of found.rules) {
    const rule = current.get(name);
    if (rule) delivered.set(name, rule);
  }
  return {
    ...state,
    delivered,
    ...scopeChanges(state, {
      listed: found.listed,
      paused: found.paused,
      resumed: [...(found.resumed ?? []), ...found.rules],
    }),
  };
}

/** The scoped rules a message listed, paused, and resumed (or gave again, or announced deleted). */
function scopeChanges(
  state: WindowState,
  said: { listed?: readonly string[]; paused?: readonly string[]; resumed?: readonly string[] },
): Pick<WindowState, "listed" | "paused"> {
  const listed = said.listed?.length ? new Set([...state.listed, ...said.listed]) : state.listed;
  if (!said.paused?.length && !said.resumed?.some((name) => state.paused.has(name)))
    return { listed, paused: state.paused };
  const paused = new Set([...state.paused, ...(said.paused ?? [])]);
  for (const name of said.resumed ?? []) paused.delete(name);
  return { listed, paused };
}

/** Every pending attempt but `except` becomes a copy. */
function supersede(attempts: ReadonlyMap<string, Attempt>, except?: string): Map<string, Attempt> {
  const next = new Map(attempts);
  for (const [id, attempt] of attempts)
    if (id !== except && attempt.status === "pending") next.set(id, { ...attempt, status: "superseded" });
  return next;
}
