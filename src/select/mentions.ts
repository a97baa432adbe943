/**
 * `@name` in the user's prompt. A token after `@` that names a rule is a rule
 * mention; any other one may be a file (`@src/app.ts`), which the working set
 * reads from the same prompt.
 */
import { isAscii } from "../conditions/case-fold.js";

const AT_TOKEN = /(?<![\p{L}\p{N}_@/.\\-])@([\p{L}\p{N}_][\p{L}\p{N}_\-./]*)/gu;
/**
 * AT_TOKEN for a prompt of ASCII only, where `\p{L}` and `\p{N}` are letters
 * and digits: the same matches, without compiling Unicode's classes (a
 * millisecond or two in a fresh process, at every start).
 */
const AT_TOKEN_ASCII = /(?<![A-Za-z0-9_@/.\\-])@([A-Za-z0-9_][A-Za-z0-9_\-./]*)/g;

/** Every `@token` in the prompt, trailing punctuation removed. */
export function atTokens(prompt: string): string[] {
  if (!prompt.includes("@")) return [];
  return [...prompt.matchAll(isAscii(prompt) ? AT_TOKEN_ASCII : AT_TOKEN)]
    .map((match) => (match[1] ?? "").replace(/[.\-/]+$/, ""))
    .filter((token) => token !== "");
}

/** Names of rules mentioned as `@name` in the prompt. */
export function mentionedRuleNames(prompt: string, ruleNames: ReadonlySet<string>): string[] {
  return [...new Set(atTokens(prompt).filter((token) => ruleNames.has(token)))];
}
