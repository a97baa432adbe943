/** What the plugin remembers about each session, kept in memory for the life of the OpenCode process. */
import type { ComposedMessage } from "../render/compose.js";
import type { Rule } from "../rule/rule.js";

export type ModelRef = { providerID: string; modelID: string };

export interface SessionState {
  agent?: string;
  model?: ModelRef;
  /** A subagent session while `subagents` is off: the plugin leaves it alone. */
  ignored?: boolean;
  /** Files in the session's context (survives compaction), in the order they arrived. */
  files: Set<string>;
  /** How many of `files` have been matched against the rules' globs. */
  filesMatched: number;
  /** Glob rules a file of the session matched, with the reason. */
  fileMatches: Map<string, string>;
  /** Rules mentioned as `@name` in the session. */
  mentioned: Set<string>;
  /** Rules activated by a condition, with the first reason: they stay active after compaction. */
  activated: Map<string, string>;
  /**
   * Rules in the model's current context window (cleared by compaction), as
   * the version the model got: a rule whose file changed since, or was
   * deleted, differs from this and is delivered again with a note.
   */
  delivered: Map<string, Rule>;
  /**
   * The plugin's rules prompts by delivery id, with what each carried, while
   * their fate matters: `pending` (sent, not known to be stored: a timeout is
   * checked in the history before trying again), `landed` (OpenCode took it),
   * `superseded` (the rules went another way, a user message or a later
   * prompt: if it lands after all, it is hidden from the model).
   */
  attempts: Map<string, DeliveryAttempt>;
  /** The on-request list is in the current context window. */
  listedOnRequest: boolean;
  /** When the silent rules message was stored: user messages of this window must sort after it. */
  rulesCreated?: number;
  /** `session.created` was seen for a new, empty session: no history to read back. */
  knownEmpty?: boolean;
  /** A compaction re-delivery is dated to this time (just after the summary), so a running loop never takes it for a new prompt. */
  dateRulesAt?: number;
  /**
   * Re-deliveries the autocontinue hook started, oldest first: each
   * `session.compacted` event joins the one of its compaction.
   */
  compactionRuns: Array<Promise<{ delivered: boolean }>>;
  /** Counts compactions: a delivery composed in an earlier window does not count for this one. */
  window: number;
}

export interface DeliveryAttempt {
  composed: ComposedMessage;
  status: "pending" | "landed" | "superseded";
  /** The window it was composed for (`SessionState.window`): landing after a compaction, it does not count for the new one. */
  window: number;
}

/** Attempts remembered per session: enough for every retry of a few deliveries. */
const ATTEMPTS_REMEMBERED = 16;

/** Remembers a new attempt, forgetting the oldest past the bound. */
export function addAttempt(state: SessionState, id: string, composed: ComposedMessage, window: number): void {
  state.attempts.set(id, { composed, status: "pending", window });
  if (state.attempts.size > ATTEMPTS_REMEMBERED) state.attempts.delete(state.attempts.keys().next().value as string);
}

/** Ids of the attempts whose fate is unknown. */
export function pendingAttempts(state: SessionState): Set<string> {
  return new Set([...state.attempts].filter(([, attempt]) => attempt.status === "pending").map(([id]) => id));
}

/** The rules went another way: a pending attempt that lands later must stay out of the model's sight. */
export function supersedePending(state: SessionState, except?: string): void {
  for (const [id, attempt] of state.attempts) if (id !== except && attempt.status === "pending") attempt.status = "superseded";
}

export function newSessionState(): SessionState {
  return { files: new Set(), filesMatched: 0, fileMatches: new Map(), mentioned: new Set(), activated: new Map(), delivered: new Map(), attempts: new Map(), listedOnRequest: false, compactionRuns: [], window: 0 };
}

/** How many deleted sessions are remembered, so a late hook or delivery for one never brings its state back. */
const DELETED_REMEMBERED = 1_000;

/** The state of a session, created on first use; a deleted session's state is freed and not created again. */
export function sessionStore() {
  const sessions = new Map<string, SessionState>();
  const deleted = new Set<string>();
  let closed = false;
  return {
    /** The session's state; undefined for a deleted session, or once the store is closed. */
    get(id: string): SessionState | undefined {
      if (closed || deleted.has(id)) return undefined;
      let state = sessions.get(id);
      if (!state) sessions.set(id, (state = newSessionState()));
      return state;
    },
    peek: (id: string) => sessions.get(id),
    delete(id: string) {
      sessions.delete(id);
      deleted.add(id);
      // Oldest first out: a Set iterates in insertion order.
      if (deleted.size > DELETED_REMEMBERED) deleted.delete(deleted.values().next().value as string);
    },
    all: () => [...sessions.values()],
    size: () => sessions.size,
    /** Frees every session; afterwards none is created (the plugin is disposed). */
    close() {
      closed = true;
      sessions.clear();
      deleted.clear();
    },
  };
}

/** A copy safe to hand out (the command line, tests): the session's working set, active and delivered rules. */
export interface SessionReport {
  sessionID: string;
  files: string[];
  active: Array<{ name: string; reason: string }>;
  delivered: string[];
}
