/**
 * The delivery model of one session: what the model's current context window
 * holds of the rules, and the plugin's rules prompts whose fate still matters.
 * Pure: `advance(state, event)` returns the next state. The engine does the
 * I/O (prompts, history reads) and reports what happened as events; which
 * I/O comes next is read from the state with the queries at the end.
 *
 * Stages of the window:
 * - `unread`: seen without its creation (a fork, a session from before a
 *   restart): only its history tells what the window holds.
 * - `empty`: holds no rules: a new session, or one a compaction emptied; a
 *   silent rules prompt brings them.
 * - `owed`: holds no rules, and the model has already read messages after
 *   the point where a silent prompt would go (OpenCode's own continuation
 *   after a compaction, a replayed prompt, the user's next message): a silent
 *   prompt now would be put before them and change what the model read, or
 *   start a turn of its own. The next message the plugin reaches (the user's
 *   message, a tool result) carries the rules.
 * - `held`: holds every rule the session needed when it was delivered;
 *   rules activated later are added by the turns that activate them.
 * - `ignored`: a subagent session while `subagents` is off: left alone.
 *
 * Attempts (silent rules prompts, by delivery id): `pending` (sent, not known
 * to be stored: after a timeout the history is read before trying again),
 * `landed` (stored), `superseded` (the rules went another way: if it lands
 * after all, it is hidden from the model).
 */
import type { ComposedMessage } from "../render/compose.js";
import { isScoped } from "../select/scope.js";
import type { Rule } from "../rule/rule.js";
import { differs } from "../formats/live-rules.js";

export type Stage = "unread" | "empty" | "owed" | "held" | "ignored";

export interface Attempt {
  readonly composed: ComposedMessage;
  readonly status: "pending" | "landed" | "superseded";
  /** The window it was composed for: landing after a compaction, it does not count for the new one. */
  readonly window: number;
}

export interface SessionDelivery {
  readonly stage: Stage;
  /** Counts compactions. */
  readonly window: number;
  /**
   * Rules in the current window, as the version the model got: a rule whose
   * file changed since, or was deleted, differs and is delivered again.
   */
  readonly delivered: ReadonlyMap<string, Rule>;
  /** The on-request list is in the current window. */
  readonly listedOnRequest: boolean;
  /** On-request rules for some agents or models that the window lists (each is listed when it comes into scope). */
  readonly listed: ReadonlySet<string>;
  /** Rules in the window the model has been told do not apply now: the session works as another agent or model. */
  readonly paused: ReadonlySet<string>;
  readonly attempts: ReadonlyMap<string, Attempt>;
  /** When the window's silent rules message was stored: the user's messages must sort after it. */
  readonly rulesCreated?: number;
  /** The host's id of the compaction that started the window, when known. */
  readonly windowStart?: string;
  /** A compaction is under way: its window starts once its summary is written, whether or not the host's event has come. */
  readonly compacting: boolean;
  /** Compactions whose window the plugin started on the host's hook or a history read, and whose host event is still to come. */
  readonly unannounced: number;
}

/** A rules message found in the window: the rules it names, and the attempt it was, if it was one. */
export interface FoundRules {
  readonly rules: readonly string[];
  readonly delivery?: string;
  /** What it said of agent and model scopes (`ComposedMessage`). */
  readonly listed?: readonly string[];
  readonly paused?: readonly string[];
  readonly resumed?: readonly string[];
}

/** The rules loaded now, by name: a delivered rule is recorded as its current object when its text is unchanged. */
export type CurrentRules = ReadonlyMap<string, Rule>;

export type DeliveryEvent =
  /** OpenCode announced the session. */
  | { type: "created"; ignored: boolean; hasHistory: boolean }
  /** A compaction began: the host will summarise the window and start a new one. */
  | { type: "compaction-started" }
  /** A compaction started a new window, empty of rules; `announced`: on the host's event for it. */
  | { type: "compacted"; windowStart?: string; announced: boolean }
  /** The host's event for a compaction whose window already started. */
  | { type: "compaction-announced" }
  /** The compaction under way ended without a new window (its summary failed). */
  | { type: "compaction-abandoned" }
  /** The model has read messages after the point where a silent prompt would go: the next message the plugin reaches carries the rules. */
  | { type: "overtaken" }
  /** A silent rules prompt went out. */
  | { type: "prompt-sent"; delivery: string; composed: ComposedMessage }
  /** The host answered that it was not stored. */
  | { type: "prompt-refused"; delivery: string }
  /** The host stored it (its answer, or the history showed it): `composed` stands in for an attempt no longer remembered. */
  | { type: "prompt-stored"; delivery: string; created: number; composed: ComposedMessage; window: number; current: CurrentRules }
  /** The plugin saw its own prompt being stored, dated `created`. */
  | { type: "prompt-seen"; delivery: string | undefined; created: number; current: CurrentRules }
  /** A delivery found nothing the window lacks. */
  | { type: "nothing-to-send" }
  /** The history showed these rules messages in the window; `settles`: they stand for the session's delivery. */
  | { type: "window-read"; found: readonly FoundRules[]; settles: boolean; current: CurrentRules }
  /** A user's message carried the rules the session lacked (or it lacked none): every prompt still on its way is a copy. */
  | { type: "user-message"; composed: ComposedMessage | undefined; current: CurrentRules }
  /** A tool result carried newly activated rules. */
  | { type: "tool-result"; composed: ComposedMessage; current: CurrentRules }
  /** The model read a rule with the rule tool. */
  | { type: "rule-read"; rule: Rule }
  /** The rule files were reloaded. */
  | { type: "reloaded"; current: CurrentRules };

/** Attempts remembered per session: enough for every retry of a few deliveries. */
const ATTEMPTS_REMEMBERED = 16;

export const NEW_SESSION: SessionDelivery = {
  stage: "unread",
  window: 0,
  delivered: new Map(),
  listedOnRequest: false,
  listed: new Set(),
  paused: new Set(),
  attempts: new Map(),
  compacting: false,
  unannounced: 0,
};

export function advance(state: SessionDelivery, event: DeliveryEvent): SessionDelivery {
  switch (event.type) {
    case "created":
      if (event.ignored) return { ...state, stage: "ignored" };
      return state.stage === "unread" && !event.hasHistory ? { ...state, stage: "empty" } : state;
    case "compaction-started":
      return { ...state, compacting: true };
    case "compacted":
      return {
        ...state,
        window: state.window + 1,
        delivered: new Map(),
        listedOnRequest: false,
        listed: new Set(),
        paused: new Set(),
        stage: state.stage === "ignored" ? "ignored" : "empty",
        windowStart: event.windowStart,
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
      const attempts = new Map(state.attempts).set(event.delivery, { composed: event.composed, status: "pending", window: state.window });
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
      if ((attempt?.window ?? event.window) !== state.window) return { ...state, attempts };
      return { ...hold(state, attempt?.composed ?? event.composed, event.current), attempts, stage: "held", rulesCreated: event.created };
    }
    case "prompt-seen": {
      const attempt = event.delivery === undefined ? undefined : state.attempts.get(event.delivery);
      if (attempt?.status !== "pending") return state;
      const attempts = new Map(state.attempts).set(event.delivery as string, { ...attempt, status: "landed" });
      // Composed for a window a compaction has ended since: the new window's delivery reads the history instead.
      if (attempt.window !== state.window) return { ...state, attempts };
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
      return { ...state, delivered: new Map(state.delivered).set(event.rule.name, event.rule), ...scopeChanges(state, { resumed: [event.rule.name] }) };
    case "reloaded": {
      const delivered = new Map<string, Rule>();
      for (const [name, given] of state.delivered) delivered.set(name, currentVersion(given, event.current));
      return { ...state, delivered };
    }
  }
}

// ---------------------------------------------------------------- queries

/** The window holds the rules: a new delivery is not due. */
export const holdsRules = (state: SessionDelivery): boolean => state.stage === "held";

/** Ids of the attempts whose fate is unknown. */
export function pendingDeliveries(state: SessionDelivery): Set<string> {
  return new Set([...state.attempts].filter(([, attempt]) => attempt.status === "pending").map(([id]) => id));
}

/** A user's message must know what the window holds before adding rules: it is not known, or a prompt may have landed unseen. */
export function mustReadWindow(state: SessionDelivery): boolean {
  return state.stage !== "held" && (state.stage === "unread" || pendingDeliveries(state).size > 0);
}

/** A late copy of rules that went another way: it stays out of the model's sight. */
export function isSuperseded(state: SessionDelivery, delivery: string | undefined): boolean {
  return delivery !== undefined && state.attempts.get(delivery)?.status === "superseded";
}

/** The window's rules go with the next tool result, as with the next user message: no silent prompt brings them. */
export const rulesOwed = (state: SessionDelivery): boolean => state.stage === "owed";

/**
 * The host's event for a compaction names no compaction: it is for the window
 * that already started when the history shows that window's compaction as the
 * latest (`latest`), or, the history unread, when a window the plugin started
 * on its own still waits for its event (events may come late and after the
 * next compaction's hook: they are counted, not matched).
 */
export function compactionAlreadyApplied(state: SessionDelivery, latest: string | undefined): boolean {
  return latest !== undefined ? latest === state.windowStart : state.unannounced > 0;
}

/** When a user's message must be dated so that it sorts after the window's rules message (undefined: as it is). */
export function userMessageDate(state: SessionDelivery, created: number): number | undefined {
  return state.stage === "held" && state.rulesCreated !== undefined && created <= state.rulesCreated ? state.rulesCreated + 1 : undefined;
}

// ---------------------------------------------------------------- helpers

/** A rule the model holds, as recorded: its current object when its text is unchanged, so it is not sent again. */
function currentVersion(given: Rule, current: CurrentRules): Rule {
  const now = current.get(given.name);
  return now && !differs(given, now) ? now : given;
}

/** Records what a message carried: a rule edited while it was on its way keeps its old version, so it goes again. */
function hold(state: SessionDelivery, composed: ComposedMessage, current: CurrentRules): SessionDelivery {
  const delivered = new Map(state.delivered);
  for (const { rule } of composed.included) delivered.set(rule.name, currentVersion(rule, current));
  for (const name of composed.removed) delivered.delete(name);
  const scoped = composed.onRequest.filter(isScoped).map((rule) => rule.name);
  const given = composed.included.map(({ rule }) => rule.name);
  return {
    ...state,
    delivered,
    listedOnRequest: state.listedOnRequest || composed.onRequest.length > 0,
    ...scopeChanges(state, { listed: scoped, paused: composed.paused, resumed: [...composed.resumed, ...given, ...composed.removed] }),
  };
}

/** What a rules message found in the history carried, by name, as the rules are now. */
function holdNamed(state: SessionDelivery, found: FoundRules, current: CurrentRules): SessionDelivery {
  const delivered = new Map(state.delivered);
  for (const name of found.rules) {
    const rule = current.get(name);
    if (rule) delivered.set(name, rule);
  }
  return { ...state, delivered, ...scopeChanges(state, { listed: found.listed, paused: found.paused, resumed: [...(found.resumed ?? []), ...found.rules] }) };
}

/** The scoped rules a message listed, paused, and resumed (or gave again, or announced deleted). */
function scopeChanges(
  state: SessionDelivery,
  said: { listed?: readonly string[]; paused?: readonly string[]; resumed?: readonly string[] },
): Pick<SessionDelivery, "listed" | "paused"> {
  const listed = said.listed?.length ? new Set([...state.listed, ...said.listed]) : state.listed;
  if (!said.paused?.length && !said.resumed?.some((name) => state.paused.has(name))) return { listed, paused: state.paused };
  const paused = new Set([...state.paused, ...(said.paused ?? [])]);
  for (const name of said.resumed ?? []) paused.delete(name);
  return { listed, paused };
}

/** Every pending attempt but `except` becomes a copy. */
function supersede(attempts: ReadonlyMap<string, Attempt>, except?: string): Map<string, Attempt> {
  const next = new Map(attempts);
  for (const [id, attempt] of attempts) if (id !== except && attempt.status === "pending") next.set(id, { ...attempt, status: "superseded" });
  return next;
}
