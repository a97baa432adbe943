/**
 * A front matter key holding patterns (`forbid`, `forbidCommands`,
 * `fileContains`, Continue's `regex`): a pattern or a list of them, each
 * read by readForbidPattern (literal or `/regex/flags`, RE2). Pure.
 *
 * A string is one pattern, a list holds several (never split at commas,
 * which patterns hold); the first MAX_PATTERNS_PER_RULE are read, the rest
 * ignored unread. An item that cannot be used is left out with a warning at
 * its line.
 */
import { MAX_PATTERNS_PER_RULE, readForbidPattern, type ForbidPattern } from "../pattern/forbid-pattern.js";
import { itemLines, keyLine, type PatternKey } from "./keys.js";
import { foundValue, ruleWarning, type RuleWarning } from "./warnings.js";

/** A pattern as a warning quotes it: the first characters of a long one. */
const QUOTED_LENGTH = 80;

/** The rule file the front matter comes from: its path, and its whole text (for the lines of warnings). */
export interface PatternFile {
  path: string;
  text: string;
}

/** `regex`: each item is a regular expression's body, as Continue writes it (`^import`), not the plugin's `/…/` form. */
export function readPatternList(
  data: Record<string, unknown>,
  key: PatternKey,
  file: PatternFile,
  warnings: RuleWarning[],
): ForbidPattern[] {
  const value = data[key];
  if (value === undefined || value === null) return [];
  const warn = (facts: Parameters<typeof ruleWarning>[1]) => warnings.push(ruleWarning(file.path, facts));
  const items: readonly unknown[] | undefined =
    typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
  if (!items) {
    warn({ code: "forbid-invalid", key, found: foundValue(value), line: keyLine(file.text, key) });
    return [];
  }
  if (items.length > MAX_PATTERNS_PER_RULE) {
    warn({
      code: "forbid-too-many",
      key,
      count: items.length,
      limit: MAX_PATTERNS_PER_RULE,
      line: keyLine(file.text, key),
    });
  }
  const read = items.slice(0, MAX_PATTERNS_PER_RULE);
  const lines = itemLines(file.text, key, read);
  const patterns: ForbidPattern[] = [];
  read.forEach((item, index) => {
    const line = lines[index];
    if (typeof item !== "string") {
      warn({ code: "forbid-invalid", key, found: foundValue(item), item: index + 1, line });
      return;
    }
    const pattern = readForbidPattern(key === "regex" ? `/${item}/` : item);
    if ("pattern" in pattern) patterns.push(key === "regex" ? { ...pattern.pattern, written: item } : pattern.pattern);
    else warn({ code: "forbid-pattern-unusable", key, pattern: quoted(item), problem: pattern.problem, line });
  });
  return patterns;
}

const quoted = (pattern: string) =>
  pattern.length > QUOTED_LENGTH ? `${pattern.slice(0, QUOTED_LENGTH - 1)}…` : pattern;
