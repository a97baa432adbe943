/**
 * What a rules message holds for a session now: the active rules not yet
 * delivered, within the byte budget, plus the list of on-request rules.
 * Pure; the engine and the command line's `render` share it.
 */
import type { Rule } from "../rule/rule.js";
import { activationOf, activeRulesFor, type ActiveRule, type SessionContext } from "../select/active.js";
import { renderRulesMessage } from "./message.js";

export interface ComposeOptions {
  /** Names of rules the session already holds in its context window. */
  alreadyDelivered?: ReadonlySet<string>;
  /** List the on-request rules (the first message of a window does). */
  listOnRequest?: boolean;
  /** Past this size, lower-priority rules are left out whole and named instead. */
  maxBytes?: number;
  /** Rules whose file changed since the session got them: the new text replaces the old. */
  replacing?: ReadonlySet<string>;
  /** Rules the session got whose files were deleted: they no longer apply. */
  removed?: readonly string[];
}

export interface ComposedMessage {
  text: string;
  included: ActiveRule[];
  onRequest: Rule[];
  /** Active rules that did not fit the budget: named in the message, readable with the `rule` tool. */
  leftOut: Rule[];
}

export const DEFAULT_MAX_MESSAGE_BYTES = 48 * 1024;

export function composeRulesMessage(rules: readonly Rule[], context: SessionContext, options: ComposeOptions = {}): ComposedMessage | undefined {
  const delivered = options.alreadyDelivered;
  const active = activeRulesFor(delivered ? rules.filter((rule) => !delivered.has(rule.name)) : rules, context);
  const onRequest = options.listOnRequest ? rules.filter((rule) => activationOf(rule) === "on-request" && !options.alreadyDelivered?.has(rule.name)) : [];
  const removed = options.removed ?? [];
  if (active.length === 0 && onRequest.length === 0 && removed.length === 0) return undefined;

  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const render = (included: ActiveRule[], leftOut: Rule[]) =>
    renderRulesMessage(
      included.map(({ rule }) => rule),
      { onRequest, leftOut, notice: changeNotice(included.filter(({ rule }) => options.replacing?.has(rule.name)).map(({ rule }) => rule.name), removed) },
    );
  // Leave out the lowest priority first (later in order among equals), whole rules only.
  const byPriority = [...active].sort((a, b) => a.rule.priority - b.rule.priority || active.indexOf(b) - active.indexOf(a));
  const leftOut = new Set<ActiveRule>();
  let text = render(active, []);
  while (byteLength(text) > maxBytes && leftOut.size < active.length) {
    leftOut.add(byPriority[leftOut.size] as ActiveRule);
    const included = active.filter((entry) => !leftOut.has(entry));
    text = render(included, active.filter((entry) => leftOut.has(entry)).map(({ rule }) => rule));
  }
  return {
    text,
    included: active.filter((entry) => !leftOut.has(entry)),
    onRequest,
    leftOut: active.filter((entry) => leftOut.has(entry)).map(({ rule }) => rule),
  };
}

/** What changed in rules the session already had, said before the rules themselves. */
function changeNotice(replaced: string[], removed: readonly string[]): string | undefined {
  const sentences: string[] = [];
  if (replaced.length > 0) sentences.push(`The rule file of ${replaced.join(", ")} changed: the version below replaces the one you were given earlier.`);
  if (removed.length > 0) sentences.push(`The rule file of ${removed.join(", ")} was deleted: that rule no longer applies.`);
  return sentences.length > 0 ? sentences.join(" ") : undefined;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
