/**
 * How a scanner's patterns are packed into RE2 sets: in order, each set
 * holding at most a given number of instructions; a regular expression the
 * DFA may give up on in smaller sets than the rest. Pure.
 */
import type { RE2Set } from "re2js";

/** A pattern to scan for: RE2 syntax and its compiled size, as readForbidPattern gives them. */
export interface ScannedPattern {
  readonly re2: string;
  readonly size: number;
  /** A literal never makes the DFA give up; a regular expression may. */
  readonly kind?: "literal" | "regex";
}

/**
 * A regular expression the DFA may give up on is matched in sets of at most
 * this many instructions: on such patterns a step costs about the set's size
 * times the window, and a smaller set keeps its DFA within memory far longer
 * (measured: 50 patterns like `(a|b|c|d)*a(a|b|c|d){150}x`, against 800 KB of
 * long lines, over 5 s and unfinished in sets of 10,000; 0.2 s in sets of
 * 2,500, no step over 16 ms). Ordinary patterns stay in big sets: fewer
 * passes over the text.
 */
export const HEAVY_GROUP_SIZE = 2_500;

/**
 * What makes RE2's DFA give up is a pattern whose states multiply: a counted
 * repeat (`[ab]{40}`) or a long run of classes after a loop. A regular
 * expression with a counted repeat of 8 or more, or of more than 48
 * instructions, is taken as heavy.
 */
export function isHeavy(pattern: ScannedPattern): boolean {
  if (pattern.kind === "literal") return false;
  if (pattern.size > 48) return true;
  return [...pattern.re2.matchAll(/\{(\d+)(?:,(\d*))?\}/g)].some(
    ([, low, high]) => Math.max(Number(low), Number(high || 0)) >= 8,
  );
}

/** What a window's context characters cost a pattern: `(?s:.)` before and after it. */
const CONTEXT_SIZE = 2;

/** A set of patterns and the sets that match them. */
export interface Group {
  /** The patterns' indices, in the order they were added to the sets. */
  readonly members: number[];
  size: number;
  /** One set per kind of window (no edge cut, the start, the end, both), built the first time one is needed. */
  readonly sets: (RE2Set | undefined)[];
}

/** Patterns in groups of at most `limit` instructions, in order (a bigger pattern alone). */
export function groupsOf(patterns: readonly ScannedPattern[], limit: number): Group[] {
  const light = patterns.flatMap((pattern, index) => (isHeavy(pattern) ? [] : [index]));
  const heavy = patterns.flatMap((pattern, index) => (isHeavy(pattern) ? [index] : []));
  return [...packed(patterns, light, limit), ...packed(patterns, heavy, Math.min(limit, HEAVY_GROUP_SIZE))];
}

/** The patterns at `indices`, in order, packed into groups of at most `limit` instructions (a bigger pattern alone). */
function packed(patterns: readonly ScannedPattern[], indices: readonly number[], limit: number): Group[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  for (const index of indices) {
    const size = patterns[index]!.size + CONTEXT_SIZE;
    if (!current || current.size + size > limit) {
      current = { members: [], size: 0, sets: [] };
      groups.push(current);
    }
    current.members.push(index);
    current.size += size;
  }
  return groups;
}
