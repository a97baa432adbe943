/**
 * A rule with a condition none of whose values can be used (every glob, or
 * every content pattern, unusable): fail closed. Such a rule must never turn
 * into one that applies more widely than its author wrote. Pure.
 */
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import type { MatchMode } from "./rule.js";

/** A rule's conditions as read: only the usable values. */
export interface Activation {
  alwaysApply: boolean | undefined;
  globs: string[];
  keywords: string[];
  fileContains: ForbidPattern[];
}

/** What the rule applies by once the lost condition is gone. */
export type NowApplies = "by-keywords" | "by-other-conditions" | "on-request" | "when-mentioned";

/**
 * The rule's activation once a condition is lost, and how to say so;
 * undefined when nothing changes (`alwaysApply: true`). The other conditions
 * still apply when one sufficed (`match: any`) and some remain; otherwise the
 * rule waits to be asked for: on request with a description, else mentioned.
 */
export function withoutLostCondition(
  activation: Activation,
  rule: { match: MatchMode; description?: string },
): { activation: Activation; applies: NowApplies } | undefined {
  if (activation.alwaysApply === true) return undefined;
  const { globs, keywords, fileContains } = activation;
  if (rule.match === "any" && globs.length + keywords.length + fileContains.length > 0) {
    return { activation, applies: globs.length + fileContains.length === 0 ? "by-keywords" : "by-other-conditions" };
  }
  return {
    activation: { alwaysApply: false, globs: [], keywords: [], fileContains: [] },
    applies: rule.description ? "on-request" : "when-mentioned",
  };
}
