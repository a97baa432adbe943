/**
 * The plugin's parts in OpenCode 1 messages: the marker in a part's metadata
 * that makes it the plugin's, and ids for parts it adds.
 */
import { MARKER_KEY, type RulesMarker } from "../../session/marker.js";
import { refusalMarker } from "../opencode/refused-call.js";
import { storedMarker } from "../opencode/stored-marker.js";

/** The plugin's marker on a part, if the part is one of the plugin's. */
export function markerOf(part: { metadata?: Record<string, unknown> } | undefined): RulesMarker | undefined {
  return storedMarker(part?.metadata?.[MARKER_KEY]);
}

/** A tool part as far as the plugin reads it: the result's metadata, and whether OpenCode cleared its output since. */
export interface ToolPartState {
  status?: string;
  /** A failed call's error: a refusal's names the rules it gave. */
  error?: unknown;
  metadata?: Record<string, unknown>;
  time?: { compacted?: number };
}

/** The plugin's marker on a tool result (rules given with it, the `rule` tool's answer, a refused call's error) while the model still reads that result. */
export function resultMarkerOf(part: { type: string; tool?: string; state?: ToolPartState }): RulesMarker | undefined {
  const state = part.type === "tool" ? part.state : undefined;
  if (state?.status === "error" && typeof state.error === "string")
    return refusalMarker(state.error, part.tool ?? "tool");
  // A pruned result (its output cleared) no longer holds the rules.
  if (state?.status !== "completed" || state.time?.compacted !== undefined) return undefined;
  return storedMarker(state.metadata?.[MARKER_KEY]);
}

/**
 * Ids for parts the plugin adds to a user message. OpenCode orders a
 * message's parts by id (`prt_` + 12 hex digits of time + random), and the
 * model should read the rules before the user's words, so the new id must
 * sort before every part already there.
 */
const ID = /^prt_([0-9a-f]{12})/;

export function partIdBefore(existingIds: readonly string[]): string {
  const stamps = existingIds.map((id) => ID.exec(id)?.[1]).filter((stamp): stamp is string => stamp !== undefined);
  const earliest =
    stamps.length > 0
      ? // biome-ignore lint/complexity/useMathMinMax: the stamps are hex strings, compared as text; Math.min would read them as numbers
        stamps.reduce((a, b) => (a < b ? a : b))
      : (Date.now() * 0x1000).toString(16).padStart(12, "0").slice(-12);
  const stamp = BigInt(`0x${earliest}`);
  const before = (stamp > 0n ? stamp - 1n : 0n).toString(16).padStart(12, "0");
  return `prt_${before}${randomSuffix()}`;
}

function randomSuffix(): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let suffix = "";
  for (let i = 0; i < 14; i++) suffix += alphabet[Math.floor(Math.random() * alphabet.length)];
  return suffix;
}
