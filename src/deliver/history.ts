/**
 * Reading a session's history back: does the model's current context window
 * already hold the plugin's rules (a fork copies them, a restarted OpenCode
 * finds them), and which agent and model did the user last use? Pure.
 */
import { markerOf, type RulesMarker } from "./prompt.js";

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

/** The rules markers in these messages (a window: `currentWindow`, `sinceCompaction`), oldest first; hidden (ignored) parts left out. */
export function rulesMarkersIn(window: readonly HistoryMessage[]): RulesMarker[] {
  const markers: RulesMarker[] = [];
  for (const message of window) {
    for (const part of message.parts) {
      const marker = part.ignored ? undefined : markerOf(part);
      if (marker) markers.push(marker);
    }
  }
  return markers;
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
 * The stored message, in `window` (the current one), holding the rules part of
 * one of these delivery attempts: which attempt, and when it was stored.
 */
export function storedDelivery(window: readonly HistoryMessage[], deliveries: { has(id: string): boolean }): { delivery: string; created?: number } | undefined {
  for (const message of window) {
    for (const part of message.parts) {
      const delivery = markerOf(part)?.delivery;
      if (delivery !== undefined && deliveries.has(delivery)) return { delivery, created: message.info.time?.created };
    }
  }
  return undefined;
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
