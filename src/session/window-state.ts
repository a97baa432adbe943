/**
 * The delivery model of one session: what the model's current context window
 * holds of the rules, and the plugin's rules prompts whose fate still matters.
 * Pure: `advanceWindow(state, event)` (`window.ts`) returns the next state. The engine does the
 * I/O (prompts, history reads) and reports what happened as events; which
 * I/O comes next is read from the state with the queries at the end.
 *
 * Stages of the window:
 * - `unread`: seen without its creation (a fork, a session from before a
 *   restart): only its history tells what the window holds.
 * - `empty`: holds no rules: a new session, or one a compaction emptied; a
 *   silent rules prompt brings them.
 * - `owed`: holds no rules, and the model has already read messages after
 *   the point where a silent prompt would go (the host's own continuation
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
import type { Rule } from "../rule/rule.js";

export type Stage = "unread" | "empty" | "owed" | "held" | "ignored";

export interface Attempt {
  readonly composed: ComposedMessage;
  readonly status: "pending" | "landed" | "superseded";
  /**
   * The session's compaction count when it was composed (the window it was for): landing after a compaction, it does
   * not count for the new one.
   */
  readonly compactions: number;
}

export interface WindowState {
  readonly stage: Stage;
  /** How many compactions the session has had: each starts a new window. */
  readonly compactions: number;
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
  /**
   * When the plugin learned that the window had started (the host's hook, its event, a history read): the compaction's
   * message is older, so a message the host dates from then on is in this window.
   */
  readonly startedAt?: number;
  /**
   * A compaction is under way: its window starts once its summary is written, whether or not the host's event has come.
   */
  readonly compacting: boolean;
  /**
   * Compactions whose window the plugin started on the host's hook or a history read, and whose host event is still to
   * come.
   */
  readonly unannounced: number;
}

/** A rules message found in the window: the rules it names, and the attempt it was, if it was one. */
export interface FoundRulesMessage {
  readonly rules: readonly string[];
  readonly delivery?: string;
  /** What it said of agent and model scopes (`ComposedMessage`). */
  readonly listed?: readonly string[];
  readonly paused?: readonly string[];
  readonly resumed?: readonly string[];
}

/** The rules loaded now, by name: a delivered rule is recorded as its current object when its text is unchanged. */
export type CurrentRules = ReadonlyMap<string, Rule>;

export type WindowEvent =
  /** The host met the session. */
  | { type: "created"; ignored: boolean; hasHistory: boolean }
  /** A compaction began: the host will summarise the window and start a new one. */
  | { type: "compaction-started" }
  /** A compaction started a new window, empty of rules; `announced`: on the host's event for it. */
  | { type: "compacted"; windowStart?: string; announced: boolean; at: number }
  /** The host's event for a compaction whose window already started. */
  | { type: "compaction-announced" }
  /** The compaction under way ended without a new window (its summary failed). */
  | { type: "compaction-abandoned" }
  /**
   * The model has read messages after the point where a silent prompt would go: the next message the plugin reaches
   * carries the rules.
   */
  | { type: "overtaken" }
  /** A silent rules prompt went out. */
  | { type: "prompt-sent"; delivery: string; composed: ComposedMessage }
  /** The host answered that it was not stored. */
  | { type: "prompt-refused"; delivery: string }
  /**
   * The host stored it (its answer, or the history showed it): `composed` stands in for an attempt no longer
   * remembered.
   */
  | {
      type: "prompt-stored";
      delivery: string;
      created: number;
      composed: ComposedMessage;
      compactions: number;
      current: CurrentRules;
    }
  /** The plugin saw its own prompt being stored, dated `created`. */
  | { type: "prompt-seen"; delivery: string | undefined; created: number; current: CurrentRules }
  /** A delivery found nothing the window lacks. */
  | { type: "nothing-to-send" }
  /** The history showed these rules messages in the window; `settles`: they stand for the session's delivery. */
  | { type: "window-read"; found: readonly FoundRulesMessage[]; settles: boolean; current: CurrentRules }
  /**
   * A user's message carried the rules the session lacked (or it lacked none): every prompt still on its way is a copy.
   */
  | { type: "user-message"; composed: ComposedMessage | undefined; current: CurrentRules }
  /** A tool result carried newly activated rules. */
  | { type: "tool-result"; composed: ComposedMessage; current: CurrentRules }
  /** The model read a rule with the rule tool. */
  | { type: "rule-read"; rule: Rule }
  /** The rule files were reloaded. */
  | { type: "reloaded"; current: CurrentRules };

/** Attempts remembered per session: enough for every retry of a few deliveries. */
export const ATTEMPTS_REMEMBERED = 16;

export const NEW_WINDOW: WindowState = {
  stage: "unread",
  compactions: 0,
  delivered: new Map(),
  listedOnRequest: false,
  listed: new Set(),
  paused: new Set(),
  attempts: new Map(),
  compacting: false,
  unannounced: 0,
};
