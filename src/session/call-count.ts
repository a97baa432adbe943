/**
 * How many tool calls a session proposed, as the record counts them: each
 * call is numbered (a refusal names its call's number), and the count is
 * noted every `NOTE_EVERY` calls and when a turn ends, not at every call: a
 * tool call's cost stays the count's increment. Pure.
 */
import type { Note, SessionState } from "./session.js";

/** A session that runs long without a turn ending still has its count noted this often. */
export const NOTE_EVERY = 100;

/** A call proposed: its number in the session, and the count noted when a round number is reached. */
export function callCounted(state: SessionState): { state: SessionState; number: number; notes: Note[] } {
  const number = (state.toolCalls ?? 0) + 1;
  const counted: SessionState = { ...state, toolCalls: number };
  if (number % NOTE_EVERY !== 0) return { state: counted, number, notes: [] };
  return { state: { ...counted, callsNoted: number }, number, notes: [{ kind: "tool-calls", calls: number }] };
}

/** A turn ended (the user's next message, the session gone): the calls made since the count was last noted. */
export function callsNoted(state: SessionState): { state: SessionState; notes: Note[] } {
  const calls = state.toolCalls ?? 0;
  if (calls === (state.callsNoted ?? 0)) return { state, notes: [] };
  return { state: { ...state, callsNoted: calls }, notes: [{ kind: "tool-calls", calls }] };
}
