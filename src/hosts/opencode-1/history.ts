/**
 * Reading an OpenCode 1 session's history back: does the model's current
 * context window already hold the plugin's rules (a fork copies them, a
 * restarted OpenCode finds them), and which agent and model did the user last
 * use? Pure.
 */
import type { RulesMarker } from "../../deliver/marker.js";
import { markerOf } from "./parts.js";

export interface HistoryMessage {
  info: { role: string; agent?: string; model?: { providerID: string; modelID: string }; time?: { created: number } };
  parts: Array<{ type: string; ignored?: boolean; metadata?: Record<string, unknown> }>;
}

/** Messages the model still sees: from the last compaction on (OpenCode drops the older ones). */
export function currentWindow<T extends HistoryMessage>(messages: readonly T[]): readonly T[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.parts.some((part) => part.type === "compaction")) return messages.slice(i);
  }
  return messages;
}

/**
 * The messages after the last compaction; none when the history shows no
 * compaction (right after one, a history without it is not yet up to date).
 */
export function sinceCompaction<T extends HistoryMessage>(messages: readonly T[]): readonly T[] {
  const window = currentWindow(messages);
  return window[0]?.parts.some((part) => part.type === "compaction") ? window : [];
}

/** The plugin's rules messages in these messages (a window), oldest first, with when each was stored; hidden (ignored) parts left out. */
export function rulesIn(window: readonly HistoryMessage[]): Array<{ marker: RulesMarker; created?: number }> {
  const found: Array<{ marker: RulesMarker; created?: number }> = [];
  for (const message of window) {
    for (const part of message.parts) {
      const marker = part.ignored ? undefined : markerOf(part);
      if (marker) found.push({ marker, created: message.info.time?.created });
    }
  }
  return found;
}

/** The agent and model of the last user message that is not the plugin's. */
export function lastUserChoice(messages: readonly HistoryMessage[]): { agent?: string; model?: { providerID: string; modelID: string } } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.info.role !== "user" || message.parts.some((part) => markerOf(part))) continue;
    return { agent: message.info.agent, model: message.info.model };
  }
  return {};
}

/**
 * When the last compaction's summary was written, if the history has one.
 * A rules message dated just after it stays in the model's window and sorts
 * before any message OpenCode adds after the summary (a replayed prompt).
 */
export function compactionSummaryTime(messages: readonly HistoryMessage[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (!messages[i]?.parts.some((part) => part.type === "compaction")) continue;
    const summary = messages.slice(i + 1).find((message) => message.info.role === "assistant");
    return summary?.info.time?.created;
  }
  return undefined;
}
