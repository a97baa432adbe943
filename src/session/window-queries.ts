/** What a session's window model says the engine should do next: queries over `window-state.ts`. Pure. */
import type { WindowState } from "./window-state.js";

/** The window holds the rules: a new delivery is not due. */
export const holdsRules = (state: WindowState): boolean => state.stage === "held";

/** Ids of the attempts whose fate is unknown. */
export function pendingDeliveries(state: WindowState): Set<string> {
  return new Set([...state.attempts].filter(([, attempt]) => attempt.status === "pending").map(([id]) => id));
}

/** A user's message must know what the window holds before adding rules: it is not known, or a prompt may have landed unseen. */
export function mustReadWindow(state: WindowState): boolean {
  return state.stage !== "held" && (state.stage === "unread" || pendingDeliveries(state).size > 0);
}

/** A late copy of rules that went another way: it stays out of the model's sight. */
export function isSuperseded(state: WindowState, delivery: string | undefined): boolean {
  return delivery !== undefined && state.attempts.get(delivery)?.status === "superseded";
}

/** The window's rules go with the next tool result, as with the next user message: no silent prompt brings them. */
export const rulesOwed = (state: WindowState): boolean => state.stage === "owed";

/**
 * The host's event for a compaction names no compaction: it is for the window
 * that already started when the history shows that window's compaction as the
 * latest (`latest`), or, the history unread, when a window the plugin started
 * on its own still waits for its event (events may come late and after the
 * next compaction's hook: they are counted, not matched).
 */
export function compactionAlreadyApplied(state: WindowState, latest: string | undefined): boolean {
  return latest !== undefined ? latest === state.windowStart : state.unannounced > 0;
}

/** When a user's message must be dated so that it sorts after the window's rules message (undefined: as it is). */
export function userMessageDate(state: WindowState, created: number): number | undefined {
  return state.stage === "held" && state.rulesCreated !== undefined && created <= state.rulesCreated
    ? state.rulesCreated + 1
    : undefined;
}

/** The session gets rules: some exist, and it is not a subagent's left alone. */
export const servedSession = (state: WindowState, ruleCount: number): boolean =>
  ruleCount > 0 && state.stage !== "ignored";
