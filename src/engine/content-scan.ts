/** The text a finished tool call brought in, matched against the rules' content conditions within a bound. */
import { contentHits } from "../select/content.js";
import type { Effect } from "../session/effects.js";
import type { SessionEvent } from "../session/events.js";
import type { RuleSet } from "../session/session.js";

/** How long the text of one tool result may be scanned for content conditions. */
export const CONTENT_SCAN_MS = 250;

/** The rules the texts activate, within CONTENT_SCAN_MS: rules it did not reach were not activated by them. */
export function scanContents(rules: RuleSet, { finished, texts, known }: Extract<Effect, { type: "scan-contents" }>) {
  const now = () => performance.now();
  const scan = contentHits(rules.list, texts, known, { now, deadline: now() + CONTENT_SCAN_MS });
  const event: SessionEvent = { type: "contents-scanned", finished, hits: scan.hits, complete: scan.complete, rules };
  return event;
}
