/**
 * How compliance moves with a session's length: refusals per 100 tool calls
 * in the first, middle and last third of sessions. Pure.
 *
 * A session's length N is the highest count of calls its `tool-calls` lines
 * (and its refusals' call numbers) give: the plugin notes the count when a
 * turn ends and every hundred calls. Call k is in third min(2, floor(3(k − 1) / N)),
 * so a third holds calls ceil(jN / 3) + 1 to ceil((j + 1)N / 3); a refusal is
 * in the third of its call. A session that began before `--since` keeps its
 * calls in their places, only those of the period counted. A line without a
 * count is left out, as is a refusal without a call number.
 */
import type { RecordEvent } from "./event.js";

export interface Third {
  toolCalls: number;
  refusals: number;
  /** Refusals per 100 tool calls, to one decimal; null without tool calls. */
  per100: number | null;
}

/** One session's calls as they are met: how many it made (the highest count), the call numbers of its refusals. */
export interface SessionCalls {
  length: number;
  refusals: number[];
}

/** Adds a `tool-calls` or `refused` line to its session's calls. */
export function addCall(sessions: Map<string, SessionCalls>, event: RecordEvent): void {
  if (event.session === undefined || event.call === undefined) return;
  let calls = sessions.get(event.session);
  if (calls === undefined) {
    calls = { length: 0, refusals: [] };
    sessions.set(event.session, calls);
  }
  if (event.call > calls.length) calls.length = event.call;
  if (event.kind === "refused") calls.refusals.push(event.call);
}

/**
 * `before`: each session's count of calls before the period, whose calls are not the period's (a session that began
 * before it keeps its calls in their places).
 */
export function complianceThirds(
  sessions: ReadonlyMap<string, SessionCalls>,
  before: ReadonlyMap<string, number> = new Map(),
): [Third, Third, Third] {
  const toolCalls = [0, 0, 0];
  const refusals = [0, 0, 0];
  for (const [session, { length, refusals: refused }] of sessions) {
    if (length === 0) continue;
    const first = (before.get(session) ?? 0) + 1;
    for (let third = 0; third < 3; third++) {
      // Calls ceil(jN/3) + 1 … ceil((j+1)N/3) are this third's; those of the period among them count.
      const from = Math.max(first, Math.ceil((third * length) / 3) + 1);
      const to = Math.ceil(((third + 1) * length) / 3);
      toolCalls[third]! += Math.max(0, to - from + 1);
    }
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
