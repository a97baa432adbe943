/**
 * A window's rules entries and the rules read in it, as the plugin's storage
 * holds them (session-port.ts): written by this plugin, but storage is
 * outside it, so what is read back is checked and anything malformed is left
 * out.
 */
import { ruleReadMarker, type RulesMarker } from "../../session/marker.js";
import { storedMarker } from "../opencode/stored-marker.js";
import type { Anchor, RulesEntry } from "./request-rules.js";

/**
 * Rules the model got outside the entries (read with the `rule` tool, a refused call's error), after
 * the window's first `at` entries.
 */
export interface RuleRead {
  readonly marker: RulesMarker;
  readonly at: number;
}

/** An entry as stored: its fields, without those it lacks. */
export function storedEntry(entry: RulesEntry): Record<string, unknown> {
  return {
    text: entry.text,
    marker: entry.marker,
    ...(entry.anchor ? { anchor: entry.anchor } : {}),
    ...(entry.awaits ? { awaits: entry.awaits } : {}),
  };
}

/** A stored entry read back; undefined when malformed. */
export function restoredEntry(value: unknown): RulesEntry | undefined {
  if (!value || typeof value !== "object") return undefined;
  const { text, marker, anchor, awaits } = value as Record<string, unknown>;
  const parsedMarker = storedMarker(marker);
  if (typeof text !== "string" || !parsedMarker) return undefined;
  const parsedAnchor = asAnchor(anchor);
  return {
    text,
    marker: parsedMarker,
    ...(parsedAnchor ? { anchor: parsedAnchor } : {}),
    ...(typeof awaits === "string" ? { awaits } : {}),
  };
}

/** A stored read: `{ marker, at }`, or `{ name, at }` as versions before refusals stored a rule read by name. */
export function restoredRead(value: unknown): RuleRead | undefined {
  const { name, marker, at } = (value ?? {}) as { name?: unknown; marker?: unknown; at?: unknown };
  if (typeof at !== "number" || !Number.isInteger(at) || at < 0) return undefined;
  const read = typeof name === "string" ? ruleReadMarker(name) : storedMarker(marker);
  return read ? { marker: read, at } : undefined;
}

function asAnchor(value: unknown): Anchor | undefined {
  const { before, after } = (value ?? {}) as { before?: unknown; after?: unknown };
  if (typeof before === "string") return { before };
  if (typeof after === "string") return { after };
  return undefined;
}
