/**
 * What the engine needs from a host (an OpenCode plugin API) and what it
 * offers it. The host's adapter turns its hooks into these calls and these
 * answers into its own shapes; the engine knows no host's shapes.
 */
import type { RulesMarker } from "../deliver/marker.js";
import type { ModelRef } from "../select/scope.js";

/** A silent rules message for a session: stored without starting a model turn. */
export interface RulesPrompt {
  sessionID: string;
  text: string;
  marker: RulesMarker;
  /** The session's own agent and model: a prompt without them can switch the session's agent. */
  agent?: string;
  model?: ModelRef;
}

/** What a session's current context window holds, as its history shows it. */
export interface WindowView {
  /** The plugin's rules messages in the window (hidden ones left out), oldest first, with when each was stored. */
  rules: Array<{ marker: RulesMarker; created?: number }>;
  /** The agent and model of the user's last message. */
  choice: { agent?: string; model?: ModelRef };
  /** The host's id of the compaction that began the window, if one did. */
  windowStart?: string;
  /** A later compaction still summarising, if any: its window starts when its summary is written. */
  compactionUnderway?: string;
  /** The window holds messages after the compaction's summary besides the plugin's rules: the model has read past the point where they would go. */
  movedOn: boolean;
}

/** The session operations a host gives the engine; each call honours `signal` (its timeout, or the plugin stopping). */
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

/** A session the host announced. */
export interface NewSession {
  id: string;
  /** Set for a subagent's session. */
  parentID?: string;
  agent?: string;
  model?: ModelRef;
  /**
   * The session comes with a history that may hold its rules already (OpenCode 1: a fork, whose
   * history the host copies in after announcing it; OpenCode 2: a session from before a restart):
   * what its window holds is read at its first message, and nothing is delivered before.
   */
  hasHistory: boolean;
}

/** A user's message about to be stored. */
export interface UserMessage {
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

/** Rules for the model, and the marker that names them. */
export interface RulesAnswer {
  text: string;
  marker: RulesMarker;
}

/** What to do with a user's message: put the rules before the user's words, and date it after the rules message. */
export interface UserMessageAnswer {
  rules?: RulesAnswer;
  /** A later date for the message, so it sorts after the window's rules message. */
  created?: number;
}

/** What to do with the plugin's own rules prompt as the host stores it. */
export interface OwnPromptAnswer {
  /** A late copy of rules that went another way (or that would land after what the model read): keep it out of the model's sight. */
  hide: boolean;
}

/** The engine as a host sees it. Every call catches its own errors: nothing here may break the user's session. */
export interface Rulebook {
  sessionCreated(session: NewSession): Promise<void>;
  /** A compaction began (OpenCode 1: `experimental.session.compacting`): its window starts once its summary is written. */
  compactionStarting(sessionID: string): void;
  /**
   * A compaction is about to let the model continue (OpenCode 1: autocontinue): its window starts now,
   * empty; `windowStart` is the host's id of the compaction, when it gives one.
   */
  compactionEnding(sessionID: string, choice: { agent?: string; model?: ModelRef }, windowStart?: string): Promise<void>;
  /** The host's event that a compaction finished (it may come late: after the user's next message went to the model). */
  sessionCompacted(sessionID: string): Promise<void>;
  sessionDeleted(sessionID: string): void;
  /** A file was edited, in no session in particular. */
  fileEdited(path: string): Promise<void>;
  userMessage(message: UserMessage): Promise<UserMessageAnswer>;
  ownPromptStored(sessionID: string, marker: RulesMarker, created: number): Promise<OwnPromptAnswer>;
  /** A tool is about to run: the files it will touch count already. */
  toolCalled(sessionID: string, args: unknown): Promise<void>;
  /** A tool ran: the rules to give the model with its result, if it activated any. */
  toolFinished(sessionID: string, tool: string, args: unknown, output: string): Promise<RulesAnswer | undefined>;
  /** The `rule` tool's answer, marked as the plugin's when it gives a rule. */
  readRule(sessionID: string, name: string): { output: string; marker?: RulesMarker };
}
