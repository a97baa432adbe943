/** How long the engine waits for each thing: the host's answers, the disk, a first message. */

/**
 * A rules prompt is stored in milliseconds; one that hangs this long is given up (and looked for in the history before
 * any retry).
 */
export const PROMPT_TIMEOUT_MS = 10_000;
/** Long enough for a prompt sent right after creating a session; short enough to go unnoticed otherwise. */
export const CREATION_GRACE_MS = 300;
/** How long a first user message waits for the rules delivery under way. */
export const FIRST_MESSAGE_WAIT_MS = 2500;

/** How long a call a host awaits may wait on each thing; the sum stays within a few seconds. */
export interface HookLimits {
  /** For a rules reload under way; past it the call goes on with the rules it has, and the reload lands later. */
  reloadWaitMs: number;
  /** For one history read. */
  historyTimeoutMs: number;
  /** For the compaction re-delivery; past it the delivery goes on, and a failure is left for the next event. */
  compactionWaitMs: number;
  /** For checking which paths named in a prompt exist. */
  pathCheckMs: number;
  /**
   * For checking a tool call against the rules that forbid, reading the file it writes included; past it the rest is
   * let through.
   */
  checkMs: number;
}

export const HOOK_LIMITS: HookLimits = {
  reloadWaitMs: 1000,
  historyTimeoutMs: 2000,
  compactionWaitMs: 4000,
  pathCheckMs: 500,
  checkMs: 1000,
};
