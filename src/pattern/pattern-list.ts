/**
 * A front matter value holding patterns (`forbid`, `forbidCommands`,
 * `fileContains`, Continue's `regex`): a pattern or a list of them, each read
 * by readForbidPattern (literal or `/regex/flags`, RE2). Pure: what was wrong
 * comes back as typed values, which rule/pattern-list.ts words with their lines.
 *
 * A string is one pattern, a list holds several (never split at commas,
 * which patterns hold); the first MAX_PATTERNS_PER_RULE are read, the rest
 * ignored unread. An item that cannot be used is left out.
 */
import { MAX_PATTERNS_PER_RULE, readForbidPattern, type ForbidPattern } from "./forbid-pattern.js";

/** What is wrong with a pattern list; `item` is the 0-based place of an item in the list as written. */
export type PatternListProblem =
  /** The value is neither a pattern nor a list of them. */
  | { code: "not-patterns"; found: unknown }
  /** More items than are read: the first `limit` are. */
  | { code: "too-many"; count: number; limit: number }
  | { code: "not-a-pattern"; item: number; found: unknown }
  /** `written` as in the file; `problem` says why, from its verb on ("uses a lookahead …"). */
  | { code: "unusable"; item: number; written: string; problem: string };

interface ReadPatterns {
  patterns: ForbidPattern[];
  problems: PatternListProblem[];
}

/**
 * The items of a pattern list as written: one string, or the first
 * MAX_PATTERNS_PER_RULE of a list; undefined when the value is neither.
 */
export function patternItems(value: unknown): readonly unknown[] | undefined {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.slice(0, MAX_PATTERNS_PER_RULE) : undefined;
}

/** `bodies`: each item is a regular expression's body, as Continue writes it (`^import`), not the `/…/` form. */
export function readPatterns(value: unknown, bodies = false): ReadPatterns {
  const problems: PatternListProblem[] = [];
  if (value === undefined || value === null) return { patterns: [], problems };
  const items = patternItems(value);
  if (!items) return { patterns: [], problems: [{ code: "not-patterns", found: value }] };
  if (Array.isArray(value) && value.length > MAX_PATTERNS_PER_RULE)
    problems.push({ code: "too-many", count: value.length, limit: MAX_PATTERNS_PER_RULE });
  const patterns: ForbidPattern[] = [];
  items.forEach((item, index) => {
    if (typeof item !== "string") {
      problems.push({ code: "not-a-pattern", item: index, found: item });
      return;
    }
    const read = readForbidPattern(bodies ? `/${item}/` : item);
    if ("pattern" in read) patterns.push(bodies ? { ...read.pattern, written: item } : read.pattern);
    else problems.push({ code: "unusable", item: index, written: item, problem: read.problem });
  });
  return { patterns, problems };
}
