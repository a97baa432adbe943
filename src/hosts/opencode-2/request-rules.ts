/**
 * Where a session's rules messages sit in an OpenCode 2 model request. Pure.
 *
 * The rules reach the model through the `context` hook, which edits one
 * request and nothing else, so every request must get each rules message again,
 * at the same place and with the same bytes: then each request is the one
 * before plus what came after it, and the provider's prompt cache holds. A
 * rules message is anchored to a message the request carries with a stable id
 * (OpenCode gives user, assistant and checkpoint messages their history id;
 * tool results have none): before the user's message it came with, or after
 * the step whose tool results brought it. When an anchor is no longer in the
 * request, the window has moved on (a compaction checkpoint, a revert) and the
 * model no longer sees what was placed there.
 */
import { MARKER_KEY, type RulesMarker } from "../../session/marker.js";
import type { LlmMessage } from "./api-llm.js";

/** Where a rules message sits: before a message, or after one and the tool results that follow it. */
export type Anchor = { readonly before: string } | { readonly after: string };

/** One rules message of a session's window. */
export interface RulesEntry {
  /** The text as delivered: never composed again, so every request carries the same bytes. */
  readonly text: string;
  readonly marker: RulesMarker;
  /** Set from the first request that could hold it. */
  readonly anchor?: Anchor;
  /** The user's message it goes before, which may reach a request only later (a queued or steered prompt). */
  readonly awaits?: string;
}

type Placement =
  /** The request with the rules in it, and the entries with their anchors. */
  | { readonly moved: false; readonly messages: LlmMessage[]; readonly entries: readonly RulesEntry[] }
  /** An anchor is gone: the window these entries were in is no longer sent. */
  | { readonly moved: true };

export function placeRules(messages: readonly LlmMessage[], entries: readonly RulesEntry[]): Placement {
  const ids = new Set<string>();
  for (const message of messages) if (message.id !== undefined) ids.add(message.id);
  const anchorOf = (anchor: Anchor) => ("before" in anchor ? anchor.before : anchor.after);
  if (entries.some((entry) => entry.anchor !== undefined && !ids.has(anchorOf(entry.anchor)))) return { moved: true };

  const fallback = newRulesAnchor(messages);
  const placed = entries.map((entry): RulesEntry => {
    if (entry.anchor !== undefined) return entry;
    if (entry.awaits !== undefined) {
      if (ids.has(entry.awaits)) return { ...entry, anchor: { before: entry.awaits } };
      // Its message is not in the request yet; unless a later user message is (it was withdrawn), it waits.
      if (!laterUserMessage(messages, entry.awaits)) return entry;
    }
    return fallback === undefined ? entry : { ...entry, anchor: fallback };
  });

  const before = new Map<string, RulesEntry[]>();
  const after = new Map<string, RulesEntry[]>();
  for (const entry of placed) {
    if (entry.anchor === undefined) continue;
    const [map, id] = "before" in entry.anchor ? [before, entry.anchor.before] : [after, entry.anchor.after];
    map.set(id, [...(map.get(id) ?? []), entry]);
  }
  const out: LlmMessage[] = [];
  let trailing: RulesEntry[] = [];
  for (const message of messages) {
    // Entries after a step wait out its tool results: a provider wants them right after the tool calls.
    if (trailing.length > 0 && !(message.role === "tool" && message.id === undefined)) {
      out.push(...trailing.map(rulesMessage));
      trailing = [];
    }
    if (message.id !== undefined) out.push(...(before.get(message.id) ?? []).map(rulesMessage));
    out.push(message);
    if (message.id !== undefined) trailing = after.get(message.id) ?? [];
  }
  out.push(...trailing.map(rulesMessage));
  return { moved: false, messages: out, entries: placed };
}

/**
 * Where rules new to this request go: before the user's messages it ends
 * with (they are new since the last request), else after the last message
 * with an id and its tool results (a tool step's continuation). Either way,
 * what the previous request held keeps its bytes and its order.
 */
function newRulesAnchor(messages: readonly LlmMessage[]): Anchor | undefined {
  let firstTrailingUser: string | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as LlmMessage;
    if (message.role !== "user" || message.id === undefined) break;
    firstTrailingUser = message.id;
  }
  if (firstTrailingUser !== undefined) return { before: firstTrailingUser };
  for (let i = messages.length - 1; i >= 0; i--) {
    const id = messages[i]?.id;
    if (id !== undefined) return { after: id };
  }
  return undefined;
}

/** OpenCode's message ids ascend with time: a user message with a later id came after the awaited one. */
function laterUserMessage(messages: readonly LlmMessage[], awaited: string): boolean {
  return messages.some((message) => message.role === "user" && message.id !== undefined && message.id > awaited);
}

/** A rules message as OpenCode 2 sends its own synthetic input: a user-role text message. */
function rulesMessage(entry: RulesEntry): LlmMessage {
  return { role: "user", content: [{ type: "text", text: entry.text }], metadata: { [MARKER_KEY]: entry.marker } };
}
