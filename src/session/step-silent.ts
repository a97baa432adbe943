/**
 * The silent delivery's steps: asked for (started, joined, or queued after
 * the one under way), each try (read the window when it may hold rules,
 * compose, send), what came of the prompt, and a failed try's retry after a
 * backoff, until the tries run out and the rules are left for the session's
 * next event. Pure.
 */
import { composeFor } from "./compose-for.js";
import type { Effect, Step } from "./effects.js";
import type { SessionEvent } from "./events.js";
import { markerFor, type SilentTrigger } from "./marker.js";
import type { RuleSet, SessionState, WindowView } from "./session.js";
import { noteDelivered } from "./delivered-note.js";
import { after, asking, markerContext, markersIn, moved, noted, only } from "./step-parts.js";
import { backoffAfter, type FailedTry } from "./silent-delivery.js";
import { holdsRules, pendingDeliveries, rulesOwed } from "./window-queries.js";

type Event<T extends SessionEvent["type"]> = Extract<SessionEvent, { type: T }>;

/** A silent delivery is asked for: one at a time; a new session's joins the one under way, a compaction's follows. */
export function deliveryAsked(state: SessionState, { trigger, thenWentOn, retry }: Event<"delivery-asked">): Step {
  const waiting: Effect = { type: "await-delivery", waiter: thenWentOn ? { kind: "went-on" } : { kind: "asker" } };
  const under = state.silent;
  if (under && trigger === "new-session") return asking(state, waiting);
  // A compaction emptied the model's context: its rules go again, after the delivery under way.
  if (under) return asking({ ...state, silent: { ...under, queued: "compaction" } }, waiting);
  if (trigger === "new-session" && holdsRules(state.window)) return only(state);
  return {
    state: { ...state, silent: { trigger, attempt: 1, retry } },
    effects: [{ type: "start-delivery", trigger }, waiting],
  };
}

/** A try is due: unless owed to the next message, read the window first when it may already hold rules. */
export function silentDue(state: SessionState, { trigger, rules, freshId }: Event<"silent-due">): Step {
  // Owed to the next message: a prompt now would land after what the model read.
  if (rulesOwed(state.window)) return ended(only(state));
  const compacted = trigger === "compaction";
  const pending = [...pendingDeliveries(state.window)];
  const needsHistory = compacted || (!state.agent && state.window.stage === "unread") || pending.length > 0;
  if (needsHistory)
    return asking(state, {
      type: "read-window",
      scope: compacted ? "since-compaction" : "current",
      purpose: { kind: "silent", trigger, pending },
    });
  return silentSend(state, trigger, pending, { rules, now: 0, freshId });
}

/**
 * `seen`: the window as read, if it was; `freshId` the delivery id a new attempt takes; `now` the date of an attempt
 * found stored without one.
 */
export function silentSend(
  before: SessionState,
  trigger: SilentTrigger,
  pending: readonly string[],
  {
    view,
    error,
    rules,
    now,
    freshId: id,
  }: { view?: WindowView; error?: string; rules: RuleSet; now: number; freshId: string },
): Step {
  // An earlier attempt that timed out may have been stored after all: never send the rules twice, and never blind.
  if (pending.length > 0 && !view) return tryFailed(before, trigger, { kind: "history-unreadable-with-pending" });
  let state = before;
  // A prompt without the session's agent would switch it to the default agent.
  if (view && !state.agent) state = { ...state, agent: view.choice.agent, model: view.choice.model };
  const compacted = trigger === "compaction";
  // The new window may already hold rules: a delivery that was on its way when the compaction came.
  if (compacted && view)
    state = moved(state, { type: "window-read", found: markersIn(view), settles: false, current: rules.byName });
  const compactions = state.window.compactions;
  const composition = composeFor(state, rules);
  const notes = noted(composition.notes);
  state = composition.state;
  const composed = composition.composed;
  if (!composed) return ended({ state: moved(state, { type: "nothing-to-send" }), effects: notes });
  // The host is already working in the new window (a replayed prompt): the next message the plugin reaches carries the
  // rules.
  if (compacted && view?.movedOn)
    return ended({
      state: moved(state, { type: "overtaken" }),
      effects: [...notes, { type: "note", note: { kind: "went-on-before-rules" } }],
    });
  const earlier = view?.rules.find(({ marker }) => marker.delivery !== undefined && pending.includes(marker.delivery));
  if (earlier?.marker.delivery !== undefined) {
    const { delivery } = earlier.marker;
    const created = earlier.created ?? now;
    return after(
      notes,
      rulesSent(state, { type: "rules-sent", delivery, created, composed, compactions, trigger, rules }),
    );
  }
  const marker = markerFor(composed, trigger, { delivery: id, ...markerContext(rules) });
  const sending: Effect = {
    type: "send-rules",
    delivery: id,
    composed,
    marker,
    trigger,
    compactions,
    agent: state.agent,
    model: state.model,
  };
  // Sent blind, as a user's turn would be: a rule read twice costs less than a rule missing.
  const blind = noted(error === undefined ? [] : [{ kind: "history-unreadable", error, silent: true }]);
  return {
    state: moved(state, { type: "prompt-sent", delivery: id, composed }),
    effects: [...notes, ...blind, sending],
  };
}

/** The host stored the prompt (or the history showed it stored): the try succeeded. */
export function rulesSent(state: SessionState, event: Event<"rules-sent">): Step {
  // What the stored attempt carried, not what would be composed now (a rule may have changed since).
  const sent = state.window.attempts.get(event.delivery)?.composed ?? event.composed;
  const { delivery, created, composed, compactions } = event;
  const next = moved(state, {
    type: "prompt-stored",
    delivery,
    created,
    composed,
    compactions,
    current: event.rules.byName,
  });
  const landed = holdsRules(next.window) && next.window.rulesCreated === event.created;
  if (!landed) return ended(only(next));
  const delivered = noteDelivered(state, next, sent, event.trigger, []);
  return ended(asking(delivered.state, { type: "note", note: delivered.note }));
}

/**
 * The prompt was not stored: forgotten when the host refused it (a timeout leaves it pending, looked for before the
 * next try).
 */
export function rulesNotSent(
  state: SessionState,
  { delivery, trigger, error, refused }: Event<"rules-not-sent">,
): Step {
  const next = refused ? moved(state, { type: "prompt-refused", delivery }) : state;
  return tryFailed(next, trigger, { kind: "not-sent", error });
}

/**
 * The delivery's conversation broke off (the plugin's own error): not tried again, left for the session's next event.
 */
export function deliveryBroke(state: SessionState, { error }: Event<"delivery-broke">): Step {
  return state.silent ? tryFailed(state, state.silent.trigger, { kind: "broke", error }) : only(state);
}

/** A try failed: tried again after its backoff, or, the tries spent, left for the session's next event. */
function tryFailed(state: SessionState, trigger: SilentTrigger, failure: FailedTry): Step {
  // A try of no delivery the session records (none under way) is not tried again.
  const under = state.silent ?? { trigger, attempt: 1, retry: { tries: 1, backoffMs: [] } };
  const final = failure.kind === "broke" || under.attempt >= under.retry.tries;
  const note: Effect = {
    type: "note",
    note: { kind: "delivery-failed", trigger: under.trigger, attempt: under.attempt, final, failure },
  };
  if (final) return after([note], ended(only(state)));
  const retrying = { ...state, silent: { ...under, attempt: under.attempt + 1 } };
  const wait = backoffAfter(under.retry, under.attempt);
  return { state: retrying, effects: [note, { type: "try-delivery", trigger: under.trigger, afterMs: wait }] };
}

/** The delivery under way is over: a compaction's that came meanwhile goes next; else none is under way. */
function ended({ state, effects }: Step): Step {
  const under = state.silent;
  if (!under) return { state, effects };
  if (under.queued === "compaction")
    return {
      state: { ...state, silent: { trigger: "compaction", attempt: 1, retry: under.retry } },
      effects: [...effects, { type: "try-delivery", trigger: "compaction", afterMs: 0 }],
    };
  const { silent: _over, ...rest } = state;
  return { state: rest, effects };
}
