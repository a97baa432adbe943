/**
 * The plugin's marker as OpenCode stored it (a message's metadata in
 * OpenCode 1's history, an entry in OpenCode 2's plugin storage). Versions
 * before the host-neutral engine wrote OpenCode 1's hook names as triggers:
 * those read as the words used now, so a history or a storage from before an
 * update reads as one written today.
 */
import { asMarker, type RulesMarker, type Trigger } from "../../session/marker.js";

const EARLIER_TRIGGERS: Readonly<Record<string, Trigger>> = {
  "session.created": "new-session",
  "session.compacted": "compaction",
  "chat.message": "first-message",
  prompt: "message",
};

export function storedMarker(value: unknown): RulesMarker | undefined {
  const marker = asMarker(value);
  if (!marker || !Object.hasOwn(EARLIER_TRIGGERS, marker.trigger)) return marker;
  return { ...marker, trigger: EARLIER_TRIGGERS[marker.trigger] as string };
}
