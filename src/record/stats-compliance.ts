/**
 * How compliance moves with a session's length: refusals per 100 tool calls
 * in the first, middle and last third of sessions. Pure.
 *
 * A session's length N is its highest call number (its count of `tool-call`
 * events, which the plugin numbers 1..N); that holds when `--since` cuts a
 * session, where the count of the calls left would not. Call k is in third
 * min(2, floor(3(k − 1) / N)); a refusal is in the third of its call.
 * Sessions without tool calls are left out, as are refusals without a call.
 */
import type { RecordEvent } from "./event.js";

export interface Third {
  toolCalls: number;
  refusals: number;
  /** Refusals per 100 tool calls, to one decimal; null without tool calls. */
  per100: number | null;
}

/** One session's calls as they are met: the call numbers of its tool calls and refusals. */
export interface SessionCalls {
  calls: number[];
  refusals: number[];
}

/** Adds a `tool-call` or `refused` event to its session's calls. */
export function addCall(sessions: Map<string, SessionCalls>, event: RecordEvent): void {
  if (event.session === undefined) return;
  let calls = sessions.get(event.session);
  if (calls === undefined) {
    calls = { calls: [], refusals: [] };
    sessions.set(event.session, calls);
  }
  if (event.kind === "tool-call") calls.calls.push(event.call ?? calls.calls.length + 1);
  else if (event.call !== undefined) calls.refusals.push(event.call);
}

export function complianceThirds(sessions: ReadonlyMap<string, SessionCalls>): [Third, Third, Third] {
  const toolCalls = [0, 0, 0];
  const refusals = [0, 0, 0];
  for (const { calls, refusals: refused } of sessions.values()) {
    if (calls.length === 0) continue;
    let length = calls.length;
    for (const call of calls) if (call > length) length = call;
    for (const call of calls) toolCalls[thirdOf(call, length)]!++;
    for (const call of refused) refusals[thirdOf(call, length)]!++;
  }
  const third = (index: number): Third => {
    const calls = toolCalls[index]!;
    const refused = refusals[index]!;
    return {
      toolCalls: calls,
      refusals: refused,
      per100: calls === 0 ? null : Math.round((refused * 1000) / calls) / 10,
    };
  };
  return [third(0), third(1), third(2)];
}

/** The third (0, 1, 2) that call `call` of a session of `length` calls falls in. */
export function thirdOf(call: number, length: number): number {
  return Math.max(0, Math.min(2, Math.floor((3 * (call - 1)) / length)));
}
