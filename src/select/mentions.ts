/**
 * `@name` in the user's prompt. A token after `@` that names a rule is a rule
 * mention; any other one may be a file (`@src/app.ts`), which the working set
 * reads from the same prompt.
 */
const AT_TOKEN = /(?<![\p{L}\p{N}_@/.\\-])@([\p{L}\p{N}_][\p{L}\p{N}_\-./]*)/gu;

/** Every `@token` in the prompt, trailing punctuation removed. */
export function atTokens(prompt: string): string[] {
  return [...prompt.matchAll(AT_TOKEN)]
    .map((match) => (match[1] ?? "").replace(/[.\-/]+$/, ""))
    .filter((token) => token !== "");
}

/** Names of rules mentioned as `@name` in the prompt. */
export function mentionedRuleNames(prompt: string, ruleNames: ReadonlySet<string>): string[] {
  return [...new Set(atTokens(prompt).filter((token) => ruleNames.has(token)))];
}
