/**
 * A forbidden pattern as a rule writes it (`forbid`, `forbidCommands`): a
 * literal (`console.log(`) or a regular expression between slashes with
 * optional flags (`/:\s*any\b/i`). Patterns come from untrusted repositories:
 * each is compiled by a linear-time engine (RE2), never by JavaScript's
 * backtracking one. Pure.
 */

/** At most this many patterns per key of one rule; the rest are ignored, with a warning. */
export const MAX_PATTERNS_PER_RULE = 50;
/** A longer pattern is ignored, with a warning. */
export const MAX_PATTERN_LENGTH = 500;

export interface ForbidPattern {
  /** As written in the rule file. */
  readonly written: string;
  readonly kind: "literal" | "regex";
  /** The pattern in RE2 syntax, its flags inline (`(?i:…)`); a literal quoted. */
  readonly re2: string;
  /** Its compiled program's size (RE2 instructions): the most matching it costs per character. */
  readonly size: number;
}

/** The pattern, or why it cannot be used (a sentence fragment: "uses a lookahead, which …"). */
export type ReadPattern = { pattern: ForbidPattern } | { problem: string };
