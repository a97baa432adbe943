/** What the plugin remembers about each session, kept in memory for the life of the OpenCode process. */
import type { ActivationReason, FileMatch } from "../select/reasons.js";
import type { ModelRef } from "../select/scope.js";
import { NEW_SESSION, type SessionDelivery } from "./delivery.js";

/** Which rules apply to the session: what its context holds. Survives compaction. */
export interface SessionActivation {
  /** Files in the session's context. */
  files: Set<string>;
  /** Files not yet matched against the rules' globs, in the order they arrived: an event's cost does not grow with the working set. */
  unmatched: string[];
  /** Glob rules a file of the session matched, with the reason. */
  fileMatches: Map<string, FileMatch>;
  /** Rules mentioned as `@name` in the session. */
  mentioned: Set<string>;
  /** Rules activated by a condition, with the first reason: they stay active after compaction. */
  activated: Map<string, ActivationReason>;
}

export interface SessionState {
  /** The agent and model the user last chose: a prompt without them would switch the session's agent. */
  agent?: string;
  model?: ModelRef;
  /** What the model's window holds of the rules (`delivery.ts`). */
  delivery: SessionDelivery;
  activation: SessionActivation;
}

export function newSessionState(): SessionState {
  return { delivery: NEW_SESSION, activation: { files: new Set(), unmatched: [], fileMatches: new Map(), mentioned: new Set(), activated: new Map() } };
}

/** Adds a file to the session's context. */
export function addFile(activation: SessionActivation, path: string): void {
  if (activation.files.has(path)) return;
  activation.files.add(path);
  activation.unmatched.push(path);
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
      if (!state) {
        state = newSessionState();
        sessions.set(id, state);
      }
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

export type SessionStore = ReturnType<typeof sessionStore>;

/** A copy safe to hand out (the command line, tests): the session's working set, active and delivered rules. */
export interface SessionReport {
  sessionID: string;
  files: string[];
  active: Array<{ name: string; reason: string }>;
  delivered: string[];
}
