/**
 * The plugin's mark on a rules message it adds to a session: the rules it
 * carries and, for a silent prompt, the delivery attempt it was. A host
 * stores it with the message (OpenCode 1: in the part's metadata) so the
 * plugin can recognise its own messages, as they are stored and in a
 * session's history.
 */
import type { ComposedMessage } from "../render/compose.js";
import { isScoped } from "../select/scope.js";

/** The key the marker is stored under in a message's (or part's) metadata, on every host. */
export const MARKER_KEY = "opencode-rulebook";

export interface RulesMarker {
  kind: "rules";
  /** Names of the rules the message carries. */
  rules: string[];
  trigger: string;
  /** One id per delivery attempt: after a timeout, the history shows whether the attempt was stored after all. */
  delivery?: string;
  /** On-request rules for some agents or models it lists; rules it says do not apply now, and apply again (absent when none). */
  listed?: string[];
  paused?: string[];
  resumed?: string[];
}

export function markerFor(composed: ComposedMessage, trigger: string, delivery?: string): RulesMarker {
  const listed = composed.onRequest.filter(isScoped).map((rule) => rule.name);
  return {
    kind: "rules",
    rules: composed.included.map(({ rule }) => rule.name),
    trigger,
    ...(delivery === undefined ? {} : { delivery }),
    ...(listed.length > 0 ? { listed } : {}),
    ...(composed.paused.length > 0 ? { paused: composed.paused } : {}),
    ...(composed.resumed.length > 0 ? { resumed: composed.resumed } : {}),
  };
}

/** The marker in a stored value, if it is the plugin's (anything else, whatever its shape, is not); a list of names of another shape is left out. */
export function asMarker(value: unknown): RulesMarker | undefined {
  if (!value || typeof value !== "object" || (value as RulesMarker).kind !== "rules" || !Array.isArray((value as RulesMarker).rules)) return undefined;
  const marker = value as RulesMarker;
  if ([marker.listed, marker.paused, marker.resumed].every((names) => names === undefined || isNameList(names))) return marker;
  const { listed, paused, resumed, ...rest } = marker;
  return { ...rest, ...(isNameList(listed) ? { listed } : {}), ...(isNameList(paused) ? { paused } : {}), ...(isNameList(resumed) ? { resumed } : {}) };
}

const isNameList = (value: unknown): value is string[] => Array.isArray(value) && value.every((name) => typeof name === "string");
