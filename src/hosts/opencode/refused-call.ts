/**
 * A refused call as a host's history keeps it: OpenCode 1 stores a failed
 * call's error text and nothing of the plugin's, so the rules it gave are read
 * back from that text (the Rules panel shows them, `blocked write src/a.ts`).
 */
import { refusedRulesIn } from "../../render/refusal.js";
import { enforcedMarker, type RulesMarker } from "../../session/marker.js";

/** The marker of a refusal the plugin wrote, read from the failed call's error; undefined for any other error. */
export function refusalMarker(error: string, tool: string): RulesMarker | undefined {
  const refused = refusedRulesIn(error);
  return refused.length === 0 ? undefined : enforcedMarker(refused, "block", tool);
}
