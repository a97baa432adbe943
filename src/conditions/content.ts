/**
 * `fileContains` (alias `regex`, Continue's key, each item a regular
 * expression's body): the rule applies when the text of a file of the
 * session holds a match. The texts are scanned as tools bring them in
 * (select/content.ts), which records each rule's first match; this kind
 * reads those records. A pattern that cannot be used is left out; a key
 * none of whose patterns can be used is a condition lost (fail closed). Pure.
 */
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import { readPatterns } from "../pattern/pattern-list.js";
import { valueIn, type ActivatingKind, type ConditionHolder, type ConditionProblem } from "./contract.js";

const CONTENT_KEYS = ["fileContains", "regex"] as const;

/** A file of the session whose text (as a tool brought it in) holds a match for one of the rule's content patterns. */
export interface ContentMatch {
  kind: "content";
  file: string;
  /** The pattern as written. */
  pattern: string;
}

type ContentSession = {
  /** Rules whose patterns a file's text of the session matched (select/content.ts records them as texts arrive). */
  contentMatches?: ReadonlyMap<string, ContentMatch>;
};

export const content = {
  kind: "content",
  role: "activates",
  keys: CONTENT_KEYS,
  expected: "a pattern or a YAML list of patterns",
  inOtherTools: true,
  read(data) {
    const given = CONTENT_KEYS.filter((key) => data[key] !== undefined && data[key] !== null);
    const patterns: ForbidPattern[] = [];
    const problems: ConditionProblem[] = [];
    for (const key of given) {
      const read = readPatterns(data[key], key === "regex");
      patterns.push(...read.patterns);
      for (const problem of read.problems) problems.push({ code: "pattern", key, problem });
    }
    const [first] = given;
    if (first !== undefined) problems.push({ code: "lost-if-none", key: first });
    return patterns.length > 0 ? { value: patterns, problems } : { problems };
  },
  isValue: (value) => Array.isArray(value) && value.length > 0 && value.every(isPattern),
  json: () => ({}),
  metKind: "content",
  met(patterns, rule, session) {
    // Its pattern must still be one of the rule's: the file may have changed since the match was recorded.
    const match = session.contentMatches?.get(rule);
    return match && patterns.some(({ written }) => written === match.pattern) ? match : undefined;
  },
  candidates(_rules, session, placesOf, into) {
    for (const name of session.contentMatches?.keys() ?? []) for (const place of placesOf(name)) into.push(place);
  },
  memo: (session) => session.contentMatches?.size,
  isStoredMet: (met) => typeof met.file === "string" && typeof met.pattern === "string",
  words: {
    label: (patterns) => `content: ${quotedList(patterns)}`,
    missing: (patterns) => `content: no file of the session seen containing ${quotedList(patterns)}`,
    met: (match) => `file ${match.file} contains ${JSON.stringify(match.pattern)}`,
    explain: (match) => `content: ${match.file} contains ${JSON.stringify(match.pattern)}`,
    panel: (match, shown) => `file ${shown(match.file)} contains ${shown(JSON.stringify(match.pattern))}`,
    patterns: { noun: "content", nothing: "no file content activates the rule" },
  },
} as const satisfies ActivatingKind<"content", readonly ForbidPattern[], ContentMatch, ContentSession>;

/** The rule's content patterns; none when it has no content condition. */
export const patternsOf = (rule: ConditionHolder): readonly ForbidPattern[] => valueIn(rule, content.kind) ?? [];

const quotedList = (patterns: readonly ForbidPattern[]) =>
  patterns.map(({ written }) => JSON.stringify(written)).join(", ");

function isPattern(value: unknown): boolean {
  const pattern = value as Partial<Record<keyof ForbidPattern, unknown>> | null;
  return (
    typeof pattern === "object" &&
    pattern !== null &&
    typeof pattern.written === "string" &&
    (pattern.kind === "literal" || pattern.kind === "regex") &&
    typeof pattern.re2 === "string" &&
    typeof pattern.size === "number"
  );
}
