/**
 * The one estimate of what text costs the model, in tokens: `list`,
 * `explain`, the Rules panel and the record all use it. It is a rough
 * figure (about four bytes a token for English text and code), never a
 * tokenizer's count: people read it as "≈ tokens".
 */
import type { Rule } from "../rule/rule.js";
import { sectionBytes } from "./fit.js";

export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/**
 * What a rule costs in a rules message: its whole block (its tags, name and
 * text), estimated. A rule's one figure: `list`, `explain`, the marker's
 * `tokens` (which the Rules panel shows) and the record all give this.
 */
export function ruleTokens(rule: Rule): number {
  return estimateTokens(sectionBytes(rule));
}

/** `≈ 309 tokens` */
export function tokensLabel(tokens: number): string {
  return `≈ ${tokens} ${tokens === 1 ? "token" : "tokens"}`;
}
