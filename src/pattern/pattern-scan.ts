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
import { type Group, groupsOf, type ScannedPattern } from "./scan-groups.js";

/** The most instructions a set holds (its patterns' sizes summed). */
export const MAX_GROUP_SIZE = 10_000;
/** The memory a set's DFA may cache states in (bytes); past it, the DFA starts over or falls back to the NFA. */
const SET_MAX_MEMORY = 1 << 20;
/** A longer unit is scanned in windows this long. */
export const WINDOW = 1024;
/** Windows overlap by the longest pattern, so a match up to that long (every literal) lies whole in one window. */
export const WINDOW_OVERLAP = MAX_PATTERN_LENGTH;

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

/**
 * The hits, by unit then pattern, each once; `complete` is false when the deadline came first (the hits found before it
 * are kept).
 */
export interface ScanResult {
  hits: ScanHit[];
  complete: boolean;
  /** When not complete: the patterns (indices) not scanned against every unit. */
  unreached?: number[];
}

export type PatternScan = (units: readonly string[], budget: ScanBudget) => ScanResult;

/**
 * A window's edge that cuts its unit: one character of the unit stands past it, as context the pattern must not reach
 * into.
 */
const CUT_BEFORE = 1;
const CUT_AFTER = 2;

/**
 * How a scanner cuts its work: `window`, how long a piece of a unit one step
 * scans (default WINDOW); `groupSize`, the most instructions one set holds
 * (default MAX_GROUP_SIZE). Longer windows cost less overlap on long texts
 * and bigger sets fewer passes over them; both make a step on patterns the
 * DFA gives up on longer, so the deadline is passed by more.
 */
interface ScanShape {
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

/**
 * Where a stepped scan stands: the next step's group, unit and window (every group from `group` on is not wholly
 * scanned until the scan ends).
 */
interface ScanPlace {
  group: number;
  unit: number;
  window: number;
}

export const scanStart = (): ScanPlace => ({ group: 0, unit: 0, window: 0 });

/**
 * Runs the scan's steps (a group against one window of one unit) from
 * `place`, adding what each finds to `found`, asking `stop()` before each:
 * true when every step was run; false when `stop()` said so, `place` then
 * naming the step not run. A plain loop: a scan of 1 MiB takes some 200,000
 * steps, and a generator's yield per step costs as much again.
 */
export function runSteps(
  core: ScanCore,
  units: readonly string[],
  found: Set<number>,
  place: ScanPlace,
  stop: () => boolean,
): boolean {
  for (; place.group < core.groups.length; place.group++, place.unit = 0) {
    const group = core.groups[place.group]!;
    for (; place.unit < units.length; place.unit++, place.window = 0) {
      const text = units[place.unit]!;
      const pieces = windowsOf(text.length, core.window);
      for (; place.window < pieces.length; place.window++) {
        if (stop()) return false;
        const piece = pieces[place.window]!;
        const scanned = piece.cut === 0 ? text : text.slice(piece.from, piece.to);
        for (const index of core.setFor(group, piece.cut).match(scanned))
          found.add(group.members[index]! * units.length + place.unit);
      }
    }
  }
  return true;
}

/** What a stepped scan found; the patterns it did not wholly scan when it stopped early. */
export function scanResult(
  core: ScanCore,
  found: ReadonlySet<number>,
  unitCount: number,
  place: ScanPlace,
  complete: boolean,
): ScanResult {
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
  const place = scanStart();
  const done = runSteps(core, units, found, place, () => budget.now() > budget.deadline);
  return scanResult(core, found, units.length, place, done);
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

interface ScanWindow {
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
  return [...found]
    .sort((a, b) => (a % unitCount) - (b % unitCount) || a - b)
    .map((key) => ({ pattern: Math.floor(key / unitCount), unit: key % unitCount }));
}
