/**
 * Which forbidden patterns a text holds, and where: many patterns at once,
 * in steps of bounded cost, within a deadline. Pure, but for the clock the
 * caller hands in.
 *
 * Patterns are matched in RE2 sets, each a group of patterns whose sizes add
 * up to at most MAX_GROUP_SIZE instructions. A set's DFA scans a line in
 * microseconds (10,000 ordinary patterns: 1 MiB of lines in ~160 ms), but on
 * adversarial patterns (`[ab]*a[ab]{40}c`, many of them) it gives up, and its
 * NFA fallback costs about the group's instructions times the characters
 * scanned (measured: 200 such patterns, 10,000 instructions, ~100 ms a KiB;
 * a whole MiB would take minutes). So text is scanned one line (a unit) at a
 * time, a long line in windows of WINDOW characters: one step, a group
 * against a window, costs at most about MAX_GROUP_SIZE × WINDOW, and the
 * deadline is checked between steps.
 */
import { RE2Set } from "re2js";
import { MAX_PATTERN_LENGTH } from "./forbid-pattern.js";

/** The most instructions a set holds (its patterns' sizes summed). */
export const MAX_GROUP_SIZE = 10_000;
/** The memory a set's DFA may cache states in (bytes); past it, the DFA starts over or falls back to the NFA. */
export const SET_MAX_MEMORY = 1 << 20;
/** A longer unit is scanned in windows this long. */
export const WINDOW = 1024;
/** Windows overlap by the longest pattern, so a match up to that long (every literal) lies whole in one window. */
export const WINDOW_OVERLAP = MAX_PATTERN_LENGTH;

/** A pattern to scan for: RE2 syntax and its compiled size, as readForbidPattern gives them. */
export interface ScannedPattern {
  readonly re2: string;
  readonly size: number;
}

/** When to stop: `now()` past `deadline` (same units, e.g. `performance.now()` milliseconds). */
export interface ScanBudget {
  now(): number;
  readonly deadline: number;
}

/** Pattern `pattern` (its index in the scanner's list) matched unit `unit` (its index in the scanned units). */
export interface ScanHit {
  readonly pattern: number;
  readonly unit: number;
}

/** The hits, by unit then pattern, each once; `complete` is false when the deadline came first (the hits found before it are kept). */
export interface ScanResult {
  hits: ScanHit[];
  complete: boolean;
  /** When not complete: the patterns (indices) not scanned against every unit. */
  unreached?: number[];
}

export type PatternScan = (units: readonly string[], budget: ScanBudget) => ScanResult;

/** A window's edge that cuts its unit: one character of the unit stands past it, as context the pattern must not reach into. */
const CUT_BEFORE = 1;
const CUT_AFTER = 2;
/** What a window's context characters cost a pattern: `(?s:.)` before and after it. */
const CONTEXT_SIZE = 2;

export interface Group {
  /** The patterns' indices, in the order they were added to the sets. */
  readonly members: number[];
  size: number;
  /** One set per kind of window (no edge cut, the start, the end, both), built the first time one is needed. */
  readonly sets: (RE2Set | undefined)[];
}

/**
 * How a scanner cuts its work: `window`, how long a piece of a unit one step
 * scans (default WINDOW); `groupSize`, the most instructions one set holds
 * (default MAX_GROUP_SIZE). Longer windows cost less overlap on long texts
 * and bigger sets fewer passes over them; both make a step on patterns the
 * DFA gives up on longer, so the deadline is passed by more.
 */
export interface ScanShape {
  window?: number;
  groupSize?: number;
}

/** The groups of a scanner and their sets, built the first time each is needed, then reused. */
export interface ScanCore {
  readonly groups: readonly Group[];
  readonly window: number;
  setFor(group: Group, cut: number): RE2Set;
}

export function scanCore(patterns: readonly ScannedPattern[], shape: ScanShape = {}): ScanCore {
  const setFor = (group: Group, cut: number): RE2Set => {
    let set = group.sets[cut];
    if (!set) {
      set = windowSet(
        group.members.map((index) => patterns[index]!.re2),
        cut,
      );
      group.sets[cut] = set;
    }
    return set;
  };
  return { groups: groupsOf(patterns, shape.groupSize ?? MAX_GROUP_SIZE), window: shape.window ?? WINDOW, setFor };
}

/** Where a stepped scan stands: the group it is in (every group from there on is not wholly scanned until the scan ends). */
export interface ScanPlace {
  group: number;
}

/**
 * The scan one step at a time: it yields before each step (a group against
 * one window of one unit), adding what each step finds to `found`.
 */
export function* scanSteps(core: ScanCore, units: readonly string[], found: Set<number>, place: ScanPlace): Generator<void, void, void> {
  for (const [at, group] of core.groups.entries()) {
    place.group = at;
    for (const [unit, text] of units.entries()) {
      for (const piece of windowsOf(text.length, core.window)) {
        yield;
        const scanned = piece.cut === 0 ? text : text.slice(piece.from, piece.to);
        for (const index of core.setFor(group, piece.cut).match(scanned)) found.add(group.members[index]! * units.length + unit);
      }
    }
  }
  place.group = core.groups.length;
}

/** What a stepped scan found; the patterns it did not wholly scan when it stopped early. */
export function scanResult(core: ScanCore, found: ReadonlySet<number>, unitCount: number, place: ScanPlace, complete: boolean): ScanResult {
  const hits = hitsOf(found, unitCount);
  if (complete) return { hits, complete };
  return { hits, complete, unreached: core.groups.slice(place.group).flatMap((group) => group.members) };
}

/**
 * A scanner for `patterns` (valid RE2, as readForbidPattern gives them) that
 * runs to the deadline in one go: its sets are built when first needed, then
 * reused.
 */
export function patternScanner(patterns: readonly ScannedPattern[], shape: ScanShape = {}): PatternScan {
  const core = scanCore(patterns, shape);
  return (units, budget) => scanWithin(core, units, budget);
}

/** A scan run to the deadline in one go. */
export function scanWithin(core: ScanCore, units: readonly string[], budget: ScanBudget): ScanResult {
  const found = new Set<number>();
  const place: ScanPlace = { group: 0 };
  for (const _ of scanSteps(core, units, found, place)) {
    if (budget.now() > budget.deadline) return scanResult(core, found, units.length, place, false);
  }
  return scanResult(core, found, units.length, place, true);
}

/** Patterns in groups of at most `limit` instructions, in order (a bigger pattern alone). */
function groupsOf(patterns: readonly ScannedPattern[], limit: number): Group[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  for (const [index, pattern] of patterns.entries()) {
    const size = pattern.size + CONTEXT_SIZE;
    if (!current || current.size + size > limit) {
      current = { members: [], size: 0, sets: [] };
      groups.push(current);
    }
    current.members.push(index);
    current.size += size;
  }
  return groups;
}

/**
 * The set for one kind of window. Where a window cuts its unit, the pattern
 * must match inside it with the unit's next character past the cut: `^`, `$`
 * and `\b` then see the unit as it is, not a text that starts or ends there.
 */
function windowSet(re2s: readonly string[], cut: number): RE2Set {
  const before = cut & CUT_BEFORE ? "(?s:.)" : "";
  const after = cut & CUT_AFTER ? "(?s:.)" : "";
  const set = new RE2Set(RE2Set.UNANCHORED, 0, SET_MAX_MEMORY);
  for (const re2 of re2s) set.add(cut === 0 ? re2 : `${before}(?:${re2})${after}`);
  set.compile();
  return set;
}

export interface ScanWindow {
  /** What is scanned: the window with its context characters. */
  readonly from: number;
  readonly to: number;
  readonly cut: number;
}

/**
 * The windows a unit of `length` characters is scanned in: the whole unit
 * when it fits in one; else windows of `window` characters, overlapping by WINDOW_OVERLAP, each
 * with the character before and after it as context where it cuts the unit.
 */
export function windowsOf(length: number, window = WINDOW): ScanWindow[] {
  if (length <= window) return [{ from: 0, to: length, cut: 0 }];
  const windows: ScanWindow[] = [];
  for (let start = 0; ; start += window - WINDOW_OVERLAP) {
    const end = Math.min(start + window, length);
    const cut = (start > 0 ? CUT_BEFORE : 0) | (end < length ? CUT_AFTER : 0);
    windows.push({ from: start > 0 ? start - 1 : 0, to: end < length ? end + 1 : end, cut });
    if (end === length) return windows;
  }
}

function hitsOf(found: ReadonlySet<number>, unitCount: number): ScanHit[] {
  return [...found].sort((a, b) => (a % unitCount) - (b % unitCount) || a - b).map((key) => ({ pattern: Math.floor(key / unitCount), unit: key % unitCount }));
}

/** The 1-based line unit `unit` starts on in the units joined with newlines (a unit may hold newlines itself: a command's heredoc). */
export function lineOfUnit(units: readonly string[], unit: number): number {
  let line = 1;
  for (let i = 0; i < unit && i < units.length; i++) line += (units[i]!.match(/\n/g)?.length ?? 0) + 1;
  return line;
}
