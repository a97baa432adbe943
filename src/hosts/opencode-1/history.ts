/**
 * Reading an OpenCode 1 session's history back: which messages the model's
 * current context window holds (and so whether it holds the plugin's rules:
 * a fork copies them, a restarted OpenCode finds them), where that window
 * began, and which agent and model the user last used. Pure.
 *
 * The window as OpenCode 1.18 builds a request (`filterCompacted`): from the
 * last compaction whose summary was written without error, that compaction's
 * message and its summary, then the recent turns it kept verbatim (the tail,
 * from the part's `tail_start_id`), then everything after the summary. A
 * compaction still summarising, or one that failed, has not moved the window.
 */
import type { RulesMarker } from "../../session/marker.js";
import { markerOf, resultMarkerOf, type ToolPartState } from "./parts.js";

export interface HistoryMessage {
  info: {
    id?: string;
    role: string;
    agent?: string;
    model?: { providerID: string; modelID: string };
    time?: { created: number };
    /** Assistant messages: a compaction's summary, the compaction message it answers, and how it ended. */
    summary?: boolean;
    parentID?: string;
    finish?: string;
    error?: unknown;
  };
  parts: Array<{
    type: string;
    tool?: string;
    ignored?: boolean;
    metadata?: Record<string, unknown>;
    tail_start_id?: string;
    state?: ToolPartState;
  }>;
}

const isCompaction = (message: HistoryMessage | undefined) =>
  message?.info.role === "user" && message.parts.some((part) => part.type === "compaction");

/** A compaction's summary, written without error. */
const isFinishedSummary = (message: HistoryMessage) =>
  message.info.role === "assistant" &&
  message.info.summary === true &&
  message.info.finish !== undefined &&
  message.info.error === undefined;

/** The plugin's own rules message (every visible part is the plugin's). */
const isOwnRulesMessage = (message: HistoryMessage) =>
  message.parts.some((part) => markerOf(part)) && message.parts.every((part) => part.ignored || markerOf(part));

/** Where the current window begins: its compaction message and that compaction's summary (indexes), or none. */
function windowStartIn(messages: readonly HistoryMessage[]): { compaction: number; summary: number } | undefined {
  const summarised = new Map<string, number>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as HistoryMessage;
    if (isCompaction(message) && message.info.id !== undefined && summarised.has(message.info.id)) {
      return { compaction: i, summary: summarised.get(message.info.id) as number };
    }
    if (isFinishedSummary(message) && message.info.parentID !== undefined && !summarised.has(message.info.parentID))
      summarised.set(message.info.parentID, i);
  }
  return undefined;
}

interface HistoryWindow<T extends HistoryMessage> {
  /** The messages the model sees, in the order it reads them. */
  messages: readonly T[];
  /** The id of the compaction message the window began with, if one did. */
  start?: string;
  /** Messages after the summary, besides the plugin's own rules messages: the model has read past the point where rules would go. */
  movedOn: boolean;
}

/** The window the model sees now (the whole history when no compaction has finished). */
export function currentWindow<T extends HistoryMessage>(messages: readonly T[]): HistoryWindow<T> {
  const start = windowStartIn(messages);
  if (!start) return { messages, movedOn: false };
  const compaction = messages[start.compaction] as T;
  const tailId = compaction.parts.find((part) => part.type === "compaction")?.tail_start_id;
  const tailAt = tailId === undefined ? -1 : messages.findIndex((message) => message.info.id === tailId);
  const tail = tailAt >= 0 && tailAt < start.compaction ? messages.slice(tailAt, start.compaction) : [];
  const after = messages.slice(start.summary + 1);
  return {
    messages: [...messages.slice(start.compaction, start.summary + 1), ...tail, ...after],
    start: compaction.info.id,
    movedOn: after.some((message) => !isOwnRulesMessage(message)),
  };
}

/** The id of a compaction newer than the current window's that has not finished (still summarising), if any. */
export function compactionUnderway(messages: readonly HistoryMessage[]): string | undefined {
  const latest = messages.findLastIndex(isCompaction);
  if (latest < 0) return undefined;
  const id = messages[latest]?.info.id;
  const answered = messages
    .slice(latest + 1)
    .some(
      (message) =>
        message.info.role === "assistant" &&
        message.info.summary === true &&
        message.info.parentID === id &&
        (message.info.finish !== undefined || message.info.error !== undefined),
    );
  return answered ? undefined : id;
}

/**
 * The plugin's rules in these messages (a window), oldest first, with when
 * each message was stored: its rules parts (hidden, ignored ones left out)
 * and, with `results`, the tool results it gave rules with. The engine
 * reads only the rules parts: a window holding only a tool result's rules
 * still lacks its rules message (the always-on rules, the on-request list).
 */
export function rulesIn(
  window: readonly HistoryMessage[],
  { results = false } = {},
): Array<{ marker: RulesMarker; created?: number }> {
  const found: Array<{ marker: RulesMarker; created?: number }> = [];
  for (const message of window) {
    for (const part of message.parts) {
      const marker = part.ignored ? undefined : (markerOf(part) ?? (results ? resultMarkerOf(part) : undefined));
      if (marker) found.push({ marker, created: message.info.time?.created });
    }
  }
  return found;
}

/** The agent and model of the last user message that is not the plugin's. */
export function lastUserChoice(messages: readonly HistoryMessage[]): {
  agent?: string;
  model?: { providerID: string; modelID: string };
} {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.info.role !== "user" || message.parts.some((part) => markerOf(part))) continue;
    return { agent: message.info.agent, model: message.info.model };
  }
  return {};
}
