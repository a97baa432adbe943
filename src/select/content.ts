/**
 * Content conditions: which rules a file's text activates, by their
 * `fileContains` patterns (Continue's `regex` among them). The text is what a
 * tool brought into the session (a read's output, a write's or an edit's new
 * text): no file is read for it. Pure but for the clock the budget holds.
 *
 * Bounds: the first MAX_CONTENT_CHARS of a text are scanned, as one unit
 * (`^` is the text's start unless the pattern says `m`, as Continue's
 * `new RegExp(regex).test(content)` reads it), by the linear-time pattern
 * sets of pattern-scan.ts, within the caller's deadline. A text seen before
 * (same file, same content: a file version) is not scanned again: its hits
 * are cached per rule set, for the last MAX_CACHED versions.
 */
import { createHash } from "node:crypto";
import { patternsOf, type ContentMatch } from "../conditions/content.js";
import { globsOf } from "../conditions/files.js";
import { matchingGlob } from "../glob/rule-glob.js";
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import { type PatternScan, patternScanner, type ScanBudget } from "../pattern/pattern-scan.js";
import type { Rule } from "../rule/rule.js";
import { ruleSetIndex } from "./rule-set.js";

/** At most this much of a text is scanned (UTF-16 code units; 1 MiB of ASCII). */
export const MAX_CONTENT_CHARS = 1 << 20;
/**
 * A whole file is scanned in 2 KiB windows by sets of up to 20,000
 * instructions: half the passes over the text of a checked call's sets, and
 * each character read about 1.3 times (1 KiB windows overlapping by 500 read
 * it twice). A step on patterns the DFA gives up on costs about what a
 * checked call's does (set size × window).
 */
const CONTENT_SCAN = { window: 2048, groupSize: 20_000 };
/** File versions whose hits are kept, per rule set. */
const MAX_CACHED = 256;

/** A file's text as a tool brought it in: `file` as the session names it (project-relative POSIX). */
interface FileText {
  file: string;
  text: string;
}

/** A rule the text activates, and why. */
export interface ContentHit {
  rule: string;
  match: ContentMatch;
}

interface ContentScan {
  hits: ContentHit[];
  /** False when the deadline came first: rules it did not reach were not activated by this text. */
  complete: boolean;
}

interface ContentIndex {
  /** Every content pattern of the rule set, each with its rule's place. */
  owners: { place: number; pattern: ForbidPattern }[];
  scan?: PatternScan;
  /** Hits by file version: (pattern index) lists. */
  cache: Map<string, number[]>;
}

const indexes = new WeakMap<readonly Rule[], ContentIndex>();

function contentIndex(rules: readonly Rule[]): ContentIndex {
  let index = indexes.get(rules);
  if (!index) {
    // The conditional rules' patterns: an always-on rule needs no text to apply.
    const owners = ruleSetIndex(rules).conditional.flatMap((place) =>
      patternsOf(rules[place] as Rule).map((pattern) => ({ place, pattern })),
    );
    index = { owners, cache: new Map() };
    indexes.set(rules, index);
  }
  return index;
}

/** Whether any rule of the set has a content condition: without one, no text needs looking at. */
export const hasContentRules = (rules: readonly Rule[]): boolean => contentIndex(rules).owners.length > 0;

/**
 * The rules `texts` activate that are not in `known` (already activated by
 * content), each with the first file and pattern that matched. A rule with
 * `match: all` and globs counts only a file its globs match: together they
 * say "a file like this, holding that".
 */
export function contentHits(
  rules: readonly Rule[],
  texts: readonly FileText[],
  known: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  budget: ScanBudget,
): ContentScan {
  const index = contentIndex(rules);
  const hits: ContentHit[] = [];
  const found = new Set<string>(known.keys());
  let complete = true;
  for (const { file, text } of texts) {
    if (index.owners.length === 0) break;
    const matched = patternsIn(index, text, budget);
    if (!matched) {
      complete = false;
      break;
    }
    for (const pattern of matched) {
      const owner = index.owners[pattern];
      const rule = owner && rules[owner.place];
      if (!owner || !rule || found.has(rule.name)) continue;
      const globs = globsOf(rule);
      if (rule.match === "all" && globs.length > 0 && matchingGlob(file, globs) === undefined) continue;
      found.add(rule.name);
      hits.push({ rule: rule.name, match: { kind: "content", file, pattern: owner.pattern.written } });
    }
  }
  return { hits, complete };
}

/** The indices of the patterns `text` holds, in order; undefined when the deadline came first. */
function patternsIn(index: ContentIndex, text: string, budget: ScanBudget): number[] | undefined {
  const scanned = text.length > MAX_CONTENT_CHARS ? text.slice(0, MAX_CONTENT_CHARS) : text;
  const version = createHash("sha1").update(scanned).digest("base64");
  const cached = index.cache.get(version);
  if (cached) return cached;
  index.scan ??= patternScanner(
    index.owners.map(({ pattern }) => pattern),
    CONTENT_SCAN,
  );
  const result = index.scan([scanned], budget);
  if (!result.complete) return undefined;
  const matched = result.hits.map(({ pattern }) => pattern).sort((a, b) => a - b);
  if (index.cache.size >= MAX_CACHED) index.cache.clear();
  index.cache.set(version, matched);
  return matched;
}
