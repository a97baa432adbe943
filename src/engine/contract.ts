/**
 * What the engine needs from a host and what it offers it, in no host's
 * words: a host's adapter turns its hooks and events into these calls, and
 * these answers into its own shapes.
 */
import type { ToolCall } from "../enforce/proposed.js";
import type { ModelRef } from "../conditions/models.js";
import type { RulesMarker, SilentTrigger } from "../session/marker.js";
import type { RulesAnswer, WindowView } from "../session/session.js";

/** A silent rules message for a session: stored without starting a model turn. */
export interface RulesPrompt {
  sessionID: string;
  text: string;
  marker: RulesMarker;
  /** The session's own agent and model: a prompt without them can switch the session's agent. */
  agent?: string;
  model?: ModelRef;
}

/**
 * The session operations a host gives the engine; each call should honour
 * `signal` (its timeout, or the plugin stopping). One that does not is given
 * up at its deadline all the same, its late answer dropped (`timing.ts`).
 */
export interface SessionPort {
  /** Stores the rules message; throws when it was not stored. */
  sendRules(prompt: RulesPrompt, signal: AbortSignal): Promise<{ created: number }>;
  /**
   * Reads the window: `current` is what the model sees now; `since-compaction`
   * is the window after the last compaction, or none while the history does
   * not show one yet (right after a compaction it may not be up to date).
   */
  readWindow(sessionID: string, scope: "current" | "since-compaction", signal: AbortSignal): Promise<WindowView>;
}

/** A session the host met. */
interface SeenSession {
  id: string;
  /** Set for a subagent's session. */
  parentID?: string;
  agent?: string;
  model?: ModelRef;
  /**
   * It comes with a history that may hold its rules already (a fork, a session from before a restart): read at its
   * first message, nothing delivered before.
   */
  hasHistory: boolean;
}

/** A user's message about to reach the model. */
interface UserTurn {
  sessionID: string;
  /** The user's words (the host's own synthetic text left out). */
  texts: string[];
  /** Files attached to it: paths or `file://` URLs. */
  files: string[];
  agent?: string;
  model?: ModelRef;
  /** When the host dates it. */
  created: number;
}

/**
 * A tool call's result, as the engine takes it. The call itself is the one
 * read before it ran (`ToolCall`), which the engine keeps: `readCall` reads
 * its arguments only when it kept none (no id, no call seen before, a session
 * that gets no rules).
 */
export interface ToolTouch {
  tool: string;
  /** The host's id of the call: the call kept for it, and the rules it broke that only warn, go with its result. */
  callID?: string;
  readCall(): Pick<ToolCall, "files" | "changes">;
  /** The lines of a listing it gave (those inside the project count). */
  listed?: readonly string[];
  /**
   * The text of the file a read brought in (the call's first file), which
   * rules with content conditions look at; asked for only when some rule has
   * one: a read's whole output need not be taken apart otherwise.
   */
  fileText?(): string;
}

/**
 * What a tool call about to run meets: refused, the model reading `refusal.text` as the call's error (the rules it
 * breaks), or let run.
 */
interface ToolVerdict {
  refusal?: RulesAnswer;
}

/** What to do with a user's message: put the rules before the user's words, and date it after the rules message. */
interface UserTurnAnswer {
  rules?: RulesAnswer;
  /** A later date for the message, so it sorts after the window's rules message. */
  created?: number;
}

/** The engine as a host sees it. Every call catches its own errors: nothing here may break the user's session. */
export interface Rulebook {
  /** The host met a session (created, or first seen after a restart). */
  sessionSeen(session: SeenSession): Promise<void>;
  /** A compaction began: its window starts once its summary is written. */
  compactionBegan(sessionID: string): void;
  /**
   * The window restarted, empty, as the host lets the model go on; `windowStart` is the host's id of its start, when it
   * has one.
   */
  windowRestarted(sessionID: string, choice: { agent?: string; model?: ModelRef }, windowStart?: string): Promise<void>;
  /** The host's word that a compaction finished (it may come late: after the user's next message went to the model). */
  compactionEnded(sessionID: string): Promise<void>;
  sessionGone(sessionID: string): void;
  /** A file was touched, in no session in particular. */
  fileTouched(path: string): Promise<void>;
  userTurn(turn: UserTurn): Promise<UserTurnAnswer>;
  /** The plugin's own rules message, as the host stores it: `hide` a late copy of rules that went another way. */
  ownRulesStored(sessionID: string, marker: RulesMarker, created: number): Promise<{ hide: boolean }>;
  /**
   * A tool is about to run: the files it will touch count already, and what it would add is checked against the rules
   * that forbid.
   */
  toolAboutToRun(sessionID: string, call: ToolCall): Promise<ToolVerdict>;
  /** A tool ran: the rules to give the model with its result, if it activated any. */
  toolResult(sessionID: string, touched: ToolTouch): Promise<RulesAnswer | undefined>;
  /** The model asked for a rule by name: the answer, marked as the plugin's when it gives a rule. */
  ruleRequested(sessionID: string, name: string): { output: string; marker?: RulesMarker };
}

/**
 * The words a host uses for each call and each silent delivery, in log lines about it (its hook's or event's name); the
 * engine's own word otherwise.
 */
export type HostLabels = Partial<Record<keyof Rulebook | SilentTrigger, string>>;
