/**
 * Every session's state, kept in memory for the life of the host's process,
 * and freed in one place: when a session is forgotten (deleted, or the plugin
 * disposed), everyone holding something of it is told (`onForget`).
 */
import { NEW_SESSION, type SessionState } from "./session.js";

/** How many deleted sessions are remembered, so a late call or delivery for one never brings its state back. */
const DELETED_REMEMBERED = 1_000;

/** `holderFailed` hears of a holder that threw while freeing a session: the others are told all the same. */
export function sessionStore(holderFailed: (sessionID: string | undefined, error: unknown) => void) {
  const sessions = new Map<string, SessionState>();
  const deleted = new Set<string>();
  const holders = new Set<(sessionID: string | undefined) => void>();
  let closed = false;
  const tell = (sessionID: string | undefined) => {
    for (const holder of holders) {
      // One holder's failure does not keep the others holding a session that is gone.
      try {
        holder(sessionID);
      } catch (error) {
        holderFailed(sessionID, error);
      }
    }
  };
  return {
    /**
     * The session's state, created when it has none yet; undefined for a deleted session, or once the store is closed.
     */
    open(id: string): SessionState | undefined {
      if (closed || deleted.has(id)) return undefined;
      let state = sessions.get(id);
      if (!state) {
        state = NEW_SESSION;
        sessions.set(id, state);
      }
      return state;
    },
    /** The session's state if it has one; never creates it. */
    peek: (id: string) => sessions.get(id),
    /** Records a session's next state; a session deleted meanwhile stays deleted. */
    set(id: string, state: SessionState) {
      if (!closed && sessions.has(id)) sessions.set(id, state);
    },
    /** Forgets a session for good, and tells every holder. */
    delete(id: string) {
      sessions.delete(id);
      deleted.add(id);
      // Oldest first out: a Set iterates in insertion order.
      if (deleted.size > DELETED_REMEMBERED) deleted.delete(deleted.values().next().value as string);
      tell(id);
    },
    /** `holder` hears of each session forgotten, and `undefined` when every session is (the store closes). */
    onForget(holder: (sessionID: string | undefined) => void): () => void {
      holders.add(holder);
      return () => holders.delete(holder);
    },
    ids: () => [...sessions.keys()],
    size: () => sessions.size,
    /** Frees every session; afterwards none is created (the plugin is disposed). */
    close() {
      closed = true;
      sessions.clear();
      deleted.clear();
      tell(undefined);
      holders.clear();
    },
  };
}

export type SessionStore = ReturnType<typeof sessionStore>;

export interface SessionReport {
  sessionID: string;
  files: string[];
  active: Array<{ name: string; reason: string }>;
  delivered: string[];
}
