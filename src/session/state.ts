/** What the plugin remembers about each session, kept in memory for the life of the OpenCode process. */
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
  /** Rules in the model's current context window (cleared by compaction). */
  delivered: Set<string>;
  /** Delivered rules whose file changed since: the next delivery carries the new text with a note. */
  replacing: Set<string>;
  /** Delivered rules whose file was deleted since: the next delivery says so. */
  removed: Set<string>;
  /** Ids of delivery attempts that failed without a clear answer (timeouts): checked in the history before trying again. */
  unconfirmed: Set<string>;
  /** The on-request list is in the current context window. */
  listedOnRequest: boolean;
  /** When the silent rules message was stored: user messages of this window must sort after it. */
  rulesCreated?: number;
  /** The rules went into a user message because the silent prompt was late or failed. */
  deliveredInUserMessage?: boolean;
  /** `session.created` was seen for a new, empty session: no history to read back. */
  knownEmpty?: boolean;
  /** A compaction re-delivery is dated to this time (just after the summary), so a running loop never takes it for a new prompt. */
  dateRulesAt?: number;
  /** The autocontinue hook already re-delivered for the compaction now ending. */
  compactionServed?: boolean;
}

export function newSessionState(): SessionState {
  return { files: new Set(), filesMatched: 0, fileMatches: new Map(), mentioned: new Set(), activated: new Map(), delivered: new Set(), replacing: new Set(), removed: new Set(), unconfirmed: new Set(), listedOnRequest: false };
}

/** The state of a session, created on first use. */
export function sessionStore() {
  const sessions = new Map<string, SessionState>();
  return {
    get(id: string): SessionState {
      let state = sessions.get(id);
      if (!state) sessions.set(id, (state = newSessionState()));
      return state;
    },
    peek: (id: string) => sessions.get(id),
    delete: (id: string) => sessions.delete(id),
    all: () => [...sessions.values()],
  };
}

/** A copy safe to hand out (the command line, tests): the session's working set, active and delivered rules. */
export interface SessionReport {
  sessionID: string;
  files: string[];
  active: Array<{ name: string; reason: string }>;
  delivered: string[];
}
