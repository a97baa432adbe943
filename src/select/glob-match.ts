/**
 * A glob matcher that cannot backtrack. Globs come from rule files in
 * repositories nobody vetted, so a regular expression built from one can be
 * made to take minutes (`a*a*a*…b` against a long name). Here:
 *
 * 1. braces (`{a,b}`, `{1..5}`, `{a..e}`) and the extglobs `@(a|b)` and
 *    `?(a|b)` are expanded into at most MAX_ALTERNATIVES plain globs;
 * 2. each plain glob is split into `/` segments; a whole `**` segment matches
 *    zero or more path segments, any other segment exactly one;
 * 3. both levels use the greedy wildcard algorithm that remembers only the
 *    last star: a segment against path segments, a token (`*`, `?`, a class,
 *    a character) against characters. It never recurses and costs at most
 *    O(path length × glob length) per alternative.
 *
 * Compiling never throws: a glob that cannot be used comes back with the reason.
 */

/** Counts the matcher's work, so a test can prove the bound without a clock. */
export interface StepCounter {
  steps: number;
}

export type CompiledGlob = { ok: true; match(path: string, counter?: StepCounter): boolean } | { ok: false; problem: string };

export interface GlobOptions {
  /** Match at any depth, as if the glob started with `**\/` (a rule glob without a slash). */
  anyDepth?: boolean;
}

export const MAX_GLOB_LENGTH = 1024;
export const MAX_ALTERNATIVES = 256;
/** All alternatives together: bounds the memory a compiled glob holds. */
export const MAX_EXPANDED_LENGTH = 8192;

export function compileGlob(glob: string, options: GlobOptions = {}): CompiledGlob {
  if (glob.length > MAX_GLOB_LENGTH) return { ok: false, problem: `it is longer than ${MAX_GLOB_LENGTH} characters` };
  const expanded = expandGlob(glob);
  if (typeof expanded === "string") return { ok: false, problem: expanded };
  const patterns: PathPattern[] = [];
  const folderNeedsChild = starBeforeTrailingGlobstar(glob);
  for (const alternative of expanded) {
    const pattern = compilePathPattern(alternative, options.anyDepth === true, folderNeedsChild);
    if (typeof pattern === "string") return { ok: false, problem: pattern };
    patterns.push(pattern);
  }
  const only = patterns.length === 1 ? patterns[0] : undefined;
  if (only) return { ok: true, match: (path, counter) => matchPathPattern(only, path.split("/"), counter) };
  return {
    ok: true,
    match: (path, counter) => {
      const segments = path.split("/");
      return patterns.some((pattern) => matchPathPattern(pattern, segments, counter));
    },
  };
}

// ---------------------------------------------------------------- brace and extglob expansion

/** A piece of a glob before expansion: literal glob text, or a choice between sequences. */
type Piece = string | Piece[][];

interface Expansion {
  pairs: Map<number, number>;
  problem?: string;
}

/** The plain globs `glob` stands for, or why it cannot be expanded. */
export function expandGlob(glob: string): string[] | string {
  const pairs = pairGroups(glob);
  if (typeof pairs === "string") return pairs;
  const context: Expansion = { pairs };
  const [pieces = []] = parseSequences(glob, 0, glob.length, "", context);
  if (context.problem) return context.problem;
  if (countOf(pieces) > MAX_ALTERNATIVES) return `its braces expand to more than ${MAX_ALTERNATIVES} alternatives`;
  const alternatives = [...new Set(expandPieces(pieces))];
  const total = alternatives.reduce((sum, alternative) => sum + alternative.length, 0);
  if (total > MAX_EXPANDED_LENGTH) return `its braces expand to more than ${MAX_EXPANDED_LENGTH} characters`;
  return alternatives;
}

/**
 * Where each group closes: `{` → its `}`, the `@`/`?` of `@(`/`?(` → its `)`.
 * One linear pass with a stack, so parsing never re-scans an unclosed opener
 * (nested unclosed braces would otherwise cost exponential time).
 * An opener left unclosed, or closed across another kind, is literal text.
 */
function pairGroups(glob: string): Map<number, number> | string {
  const pairs = new Map<number, number>();
  const open: Array<{ at: number; kind: "{" | "(" }> = [];
  const close = (kind: "{" | "(", at: number) => {
    const index = open.findLastIndex((entry) => entry.kind === kind);
    if (index < 0) return;
    pairs.set(open[index]!.at, at);
    open.length = index;
  };
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "\\") i++;
    else if (char === "[") i = Math.max(i, classEnd(glob, i) - 1);
    else if (char === "{") open.push({ at: i, kind: "{" });
    else if (char === "}") close("{", i);
    else if (char === ")") close("(", i);
    else if (char === "(" && i > 0 && !escaped(glob, i - 1)) {
      const before = glob[i - 1]!;
      if (before === "@" || before === "?") open.push({ at: i - 1, kind: "(" });
      else if (before === "*" || before === "+" || before === "!") return `the extglob "${before}(…)" is not supported; use {a,b} or @(a|b)`;
    }
  }
  return pairs;
}

/** Whether the character at `index` is escaped by an odd run of backslashes before it. */
function escaped(glob: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && glob[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 1;
}

/** `glob[from, to)` split at top-level `separator`s into sequences of pieces. */
function parseSequences(glob: string, from: number, to: number, separator: "," | "|" | "", context: Expansion): Piece[][] {
  const sequences: Piece[][] = [];
  let current: Piece[] = [];
  let text = "";
  // Whether `text` directly follows a group: a `**` there is no whole segment.
  let afterGroup = false;
  const flush = () => {
    if (text !== "") current.push(text);
    text = "";
    afterGroup = false;
  };
  for (let i = from; i < to; i++) {
    const char = glob[i]!;
    const end = context.pairs.get(i);
    const classClose = char === "[" ? classEnd(glob, i) : -1;
    if (char === "\\") {
      text += glob.slice(i, i + 2);
      i++;
    } else if (classClose > 0) {
      text += glob.slice(i, classClose);
      i = classClose - 1;
    } else if (end !== undefined) {
      text = starsBeforeGroup(glob, text, i, from);
      flush();
      if (char === "{") current.push(...braceGroup(glob, i, end, context));
      else current.push(extglobGroup(glob, i, end, context));
      afterGroup = true;
      i = end;
    } else if (char === separator) {
      flush();
      sequences.push(current);
      current = [];
    } else if (!(char === "*" && afterGroup && text === "*")) text += char;
  }
  flush();
  sequences.push(current);
  return sequences;
}

/**
 * A `**` that runs into a group is no whole segment, whatever the group
 * expands to (an empty `?(…)` option would otherwise leave a `**` segment).
 * micromatch reads it as a star, except at the start of a segment before `{`
 * or `@(`, where it crosses slashes: `**{a,b}` is `**\/*{a,b}`.
 */
function starsBeforeGroup(glob: string, text: string, group: number, from: number): string {
  if (!text.endsWith("**") || escaped(glob, group - 1)) return text;
  if (glob[group] !== "?" && group - 2 >= from && startsSegment(glob, group - 2)) return `${text}/*`;
  return text.slice(0, -1);
}

/** Whether the `**` at `at` is a whole run of stars at the start of a segment. */
function startsSegment(glob: string, at: number): boolean {
  return (at === 0 || (glob[at - 1] === "/" && !escaped(glob, at - 1))) && !escaped(glob, at);
}

/** `{a,b}` → a choice; `{1..3}` → a range; `{a}` stays literal (as in Bash), its inner groups expanded. */
function braceGroup(glob: string, open: number, close: number, context: Expansion): Piece[] {
  const options = parseSequences(glob, open + 1, close, ",", context);
  if (options.length > 1) return [options];
  const range = expandRange(glob.slice(open + 1, close));
  if (typeof range === "string") {
    context.problem ??= range;
    return [];
  }
  if (range) return [range.map((item) => [item])];
  return ["{", ...(options[0] ?? []), "}"];
}

/** `@(a|b)` is one of the alternatives; `?(a|b)` also allows none. */
function extglobGroup(glob: string, at: number, close: number, context: Expansion): Piece {
  const options = parseSequences(glob, at + 2, close, "|", context);
  return glob[at] === "?" ? [[], ...options] : options;
}

const NUMBER_RANGE = /^(-?\d{1,15})\.\.(-?\d{1,15})(?:\.\.(-?\d{1,15}))?$/;
const LETTER_RANGE = /^([a-z]\.\.[a-z]|[A-Z]\.\.[A-Z])(?:\.\.(-?\d{1,15}))?$/;

/** The items of `{1..5}`, `{01..10}`, `{5..1..2}` or `{a..e}`; undefined when `text` is no range. */
function expandRange(text: string): string[] | string | undefined {
  const numbers = NUMBER_RANGE.exec(text);
  const letters = numbers ? undefined : LETTER_RANGE.exec(text);
  if (!numbers && !letters) return undefined;
  const first = numbers ? Number(numbers[1]) : text.charCodeAt(0);
  const last = numbers ? Number(numbers[2]) : text.charCodeAt(3);
  const step = Math.abs(Number((numbers ? numbers[3] : letters![2]) ?? 1)) || 1;
  const count = Math.floor(Math.abs(last - first) / step) + 1;
  if (count > MAX_ALTERNATIVES) return `the range {${text}} has more than ${MAX_ALTERNATIVES} items`;
  // Bash pads every number to the widest end when either end has a leading zero.
  const padded = numbers !== null && (/^-?0\d/.test(numbers[1]!) || /^-?0\d/.test(numbers[2]!));
  const width = padded ? Math.max(numbers[1]!.length, numbers[2]!.length) : 0;
  const direction = last >= first ? 1 : -1;
  const items: string[] = [];
  for (let i = 0; i < count; i++) {
    const value = first + direction * i * step;
    items.push(numbers ? padNumber(value, width) : String.fromCharCode(value));
  }
  return items;
}

function padNumber(value: number, width: number): string {
  const digits = String(Math.abs(value)).padStart(width - (value < 0 ? 1 : 0), "0");
  return value < 0 ? `-${digits}` : digits;
}

/** How many alternatives `pieces` expand to, counted without expanding and saturating past the limit. */
function countOf(pieces: Piece[]): number {
  let product = 1;
  for (const piece of pieces) {
    if (typeof piece === "string") continue;
    const sum = piece.reduce((total, option) => total + countOf(option), 0);
    product = Math.min(product * sum, MAX_ALTERNATIVES + 1);
  }
  return product;
}

function expandPieces(pieces: Piece[]): string[] {
  let results = [""];
  for (const piece of pieces) {
    if (typeof piece === "string") results = results.map((prefix) => joinGlobText(prefix, piece));
    else {
      const tails = piece.flatMap((option) => expandPieces(option));
      results = results.flatMap((prefix) => tails.map((tail) => joinGlobText(prefix, tail)));
    }
  }
  return results;
}

/** `*` + `*` across a group is one star, not a `**` that would match across folders: `{a,*}*` is `a*` or `*`. */
function joinGlobText(prefix: string, tail: string): string {
  const starMeetsStar = prefix.endsWith("*") && tail.startsWith("*") && !escaped(prefix, prefix.length - 1);
  return starMeetsStar ? prefix + tail.slice(1) : prefix + tail;
}

// ---------------------------------------------------------------- character classes

interface CharClass {
  negated: boolean;
  /** Inclusive UTF-16 code ranges, flattened: [low, high, low, high, …]. */
  ranges: number[];
}

const POSIX_CLASSES: Record<string, number[]> = {
  alpha: [65, 90, 97, 122],
  digit: [48, 57],
  alnum: [48, 57, 65, 90, 97, 122],
  upper: [65, 90],
  lower: [97, 122],
  space: [9, 13, 32, 32],
  blank: [9, 9, 32, 32],
  punct: [33, 47, 58, 64, 91, 96, 123, 126],
  cntrl: [0, 31, 127, 127],
  graph: [33, 126],
  print: [32, 126],
  xdigit: [48, 57, 65, 70, 97, 102],
  word: [48, 57, 65, 90, 95, 95, 97, 122],
  ascii: [0, 127],
};

/** Sticky, and names are short: reading one never scans the rest of the glob. */
const POSIX_NAME = /\[:([a-z]{1,10}):\]/y;

/** The name of the `[:name:]` starting at `at`, if one does. */
function posixName(glob: string, at: number): string | undefined {
  if (glob[at] !== "[" || glob[at + 1] !== ":") return undefined;
  POSIX_NAME.lastIndex = at;
  return POSIX_NAME.exec(glob)?.[1];
}

/**
 * Index just past the `]` closing the class that opens at `open`, or -1 when
 * `[` is literal there. A class never spans a `/`: paths are matched segment by segment.
 */
function classEnd(glob: string, open: number): number {
  let i = open + 1;
  if (glob[i] === "!" || glob[i] === "^") i++;
  if (glob[i] === "]") i++;
  for (; i < glob.length; i++) {
    const char = glob[i];
    if (char === "/") return -1;
    if (char === "]") return i + 1;
    if (char === "\\") {
      if (glob[i + 1] === "/") return -1;
      i++;
    } else if (char === "[") {
      const name = posixName(glob, i);
      if (name !== undefined) i += name.length + 3;
    }
  }
  return -1;
}

/** The class `glob[open, end)`, e.g. `[!a-z_]` or `[[:alpha:]]`, or why it cannot be used. */
function parseClass(glob: string, open: number, end: number): CharClass | string {
  let i = open + 1;
  const negated = glob[i] === "!" || glob[i] === "^";
  if (negated) i++;
  const ranges: number[] = [];
  const last = end - 1;
  while (i < last) {
    const name = posixName(glob, i);
    if (name !== undefined) {
      const named = POSIX_CLASSES[name];
      if (!named) return `[:${name}:] is not a known character class`;
      ranges.push(...named);
      i += name.length + 4;
      continue;
    }
    // A `]` first in the class is a member (classEnd skipped it): it is read like any character.
    const [low, afterLow] = classChar(glob, i);
    if (glob[afterLow] === "-" && afterLow + 1 < last) {
      const [high, afterHigh] = classChar(glob, afterLow + 1);
      if (high < low) return `the character range ${glob.slice(i, afterHigh)} is reversed`;
      ranges.push(low, high);
      i = afterHigh;
    } else {
      ranges.push(low, low);
      i = afterLow;
    }
  }
  return { negated, ranges };
}

/** One member character of a class (a backslash escapes it) and the index after it. */
function classChar(glob: string, i: number): [number, number] {
  if (glob[i] === "\\" && i + 1 < glob.length) return [glob.charCodeAt(i + 1), i + 2];
  return [glob.charCodeAt(i), i + 1];
}

function classMatches(charClass: CharClass, code: number, counter: StepCounter | undefined): boolean {
  const { ranges } = charClass;
  if (counter) counter.steps += ranges.length / 2;
  let inside = false;
  for (let i = 0; i < ranges.length && !inside; i += 2) inside = code >= ranges[i]! && code <= ranges[i + 1]!;
  return inside !== charClass.negated;
}

// ---------------------------------------------------------------- one path segment

/** Token codes within a segment: a character's code (≥ 0), or one of these; classes are CLASS_BASE - index. */
const ANY_CHAR = -1;
const STAR = -2;
const CLASS_BASE = -3;

type SegmentPattern =
  | { kind: "literal"; text: string }
  /** `*`: any one segment that is not empty. */
  | { kind: "star" }
  | {
      kind: "wildcard";
      /** Literal characters before the first wildcard and after the last: checked with startsWith/endsWith. */
      prefix: string;
      suffix: string;
      /** The tokens between prefix and suffix. */
      tokens: number[];
      classes: CharClass[];
      /** Characters the segment needs at least: every token but stars. */
      minLength: number;
      /** The middle is a single `*`: prefix and suffix decide. */
      starOnly: boolean;
    }
  | { kind: "globstar" };

const GLOBSTAR: SegmentPattern = { kind: "globstar" };
const STAR_SEGMENT: SegmentPattern = { kind: "star" };

function compileSegment(text: string): SegmentPattern | string {
  if (text === "**") return GLOBSTAR;
  const tokens: number[] = [];
  const classes: CharClass[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const end = char === "[" ? classEnd(text, i) : -1;
    if (char === "\\" && i + 1 < text.length) tokens.push(text.charCodeAt(++i));
    else if (char === "*") {
      // A star that is not a whole segment, `**` included, stays within the segment.
      if (tokens[tokens.length - 1] !== STAR) tokens.push(STAR);
    } else if (char === "?") tokens.push(ANY_CHAR);
    else if (end > 0) {
      const charClass = parseClass(text, i, end);
      if (typeof charClass === "string") return charClass;
      tokens.push(CLASS_BASE - classes.length);
      classes.push(charClass);
      i = end - 1;
    } else tokens.push(text.charCodeAt(i));
  }
  if (tokens.every((token) => token >= 0)) return { kind: "literal", text: String.fromCharCode(...tokens) };
  if (tokens.length === 1 && tokens[0] === STAR) return STAR_SEGMENT;
  let start = 0;
  while (start < tokens.length && tokens[start]! >= 0) start++;
  let end = tokens.length;
  while (end > start && tokens[end - 1]! >= 0) end--;
  const middle = tokens.slice(start, end);
  return {
    kind: "wildcard",
    prefix: String.fromCharCode(...tokens.slice(0, start)),
    suffix: String.fromCharCode(...tokens.slice(end)),
    tokens: middle,
    classes,
    minLength: tokens.filter((token) => token !== STAR).length,
    starOnly: middle.length === 1 && middle[0] === STAR,
  };
}

function matchSegment(pattern: SegmentPattern, segment: string, counter: StepCounter | undefined): boolean {
  if (counter) counter.steps++;
  switch (pattern.kind) {
    case "literal":
      if (counter) counter.steps += pattern.text.length;
      return segment === pattern.text;
    case "star":
      return segment.length > 0;
    case "globstar":
      return true;
    case "wildcard": {
      if (segment.length < pattern.minLength) return false;
      if (counter) counter.steps += pattern.prefix.length + pattern.suffix.length;
      if (!segment.startsWith(pattern.prefix) || !segment.endsWith(pattern.suffix)) return false;
      return pattern.starOnly || matchTokens(pattern, segment, pattern.prefix.length, segment.length - pattern.suffix.length, counter);
    }
  }
}

/** Characters of a segment against its tokens: `*` is the star. */
function matchTokens(pattern: { tokens: number[]; classes: CharClass[] }, text: string, from: number, to: number, counter: StepCounter | undefined): boolean {
  const { tokens, classes } = pattern;
  return greedyMatch(tokens.length, from, to, (t) => tokens[t] === STAR, (t, s) => tokenMatches(tokens[t]!, text.charCodeAt(s), classes, counter), counter);
}

/**
 * The greedy wildcard algorithm, at both levels: on a mismatch, go back to
 * just after the last star and let it take one more item. Earlier stars never
 * need to take more, so each (item, pattern element) pair is tried at most
 * once: O(n × m), without recursion.
 */
function greedyMatch(length: number, from: number, to: number, isStar: (p: number) => boolean, matches: (p: number, s: number) => boolean, counter: StepCounter | undefined): boolean {
  let p = 0;
  let s = from;
  let starAt = -1;
  let starFrom = from;
  while (s < to) {
    if (counter) counter.steps++;
    if (p < length && isStar(p)) {
      starAt = p++;
      starFrom = s;
    } else if (p < length && matches(p, s)) {
      p++;
      s++;
    } else if (starAt >= 0) {
      p = starAt + 1;
      s = ++starFrom;
    } else return false;
  }
  while (p < length && isStar(p)) p++;
  return p === length;
}

function tokenMatches(token: number, code: number, classes: CharClass[], counter: StepCounter | undefined): boolean {
  if (token >= 0) return token === code;
  if (token === ANY_CHAR) return true;
  return classMatches(classes[CLASS_BASE - token]!, code, counter);
}

// ---------------------------------------------------------------- a whole path

interface PathPattern {
  /** Segments before the first `**`, each matching one path segment in order. */
  head: SegmentPattern[];
  /** Segments after the last `**`; empty `middle` means there is no `**`. */
  tail: SegmentPattern[];
  /** From the first `**` to the last, inclusive. */
  middle: SegmentPattern[];
  /** Path segments the pattern needs at least. */
  minSegments: number;
}

/**
 * micromatch lets a trailing `/**` match nothing (`x/**` matches `x`) unless
 * the glob's text right before it is a star: `*\/**` and `a*\/**` need one
 * more segment. Decided on the glob as written, before braces are expanded,
 * as micromatch does (`{a,*}/**` matches `b`).
 */
function starBeforeTrailingGlobstar(glob: string): boolean {
  let end = glob.length;
  while (end >= 3 && glob.startsWith("/**", end - 3)) end -= 3;
  return end < glob.length && end > 0 && glob[end - 1] === "*" && !escaped(glob, end - 1);
}

function compilePathPattern(glob: string, anyDepth: boolean, folderNeedsChild: boolean): PathPattern | string {
  const segments: SegmentPattern[] = anyDepth ? [GLOBSTAR] : [];
  for (const text of splitSegments(glob)) {
    const segment = compileSegment(text);
    if (typeof segment === "string") return segment;
    // `a/**/**/b` is `a/**/b`.
    if (segment === GLOBSTAR && segments[segments.length - 1] === GLOBSTAR) continue;
    segments.push(segment);
  }
  const last = segments.length - 1;
  if (folderNeedsChild && last >= 1 && segments[last] === GLOBSTAR) segments.splice(last, 0, STAR_SEGMENT);
  const first = segments.indexOf(GLOBSTAR);
  const lastGlobstar = segments.lastIndexOf(GLOBSTAR);
  const middle = first < 0 ? [] : segments.slice(first, lastGlobstar + 1);
  return {
    head: first < 0 ? segments : segments.slice(0, first),
    tail: first < 0 ? [] : segments.slice(lastGlobstar + 1),
    middle,
    minSegments: segments.filter((segment) => segment !== GLOBSTAR).length,
  };
}

/** Splits at `/`, an escaped `\/` included (no segment can hold a slash); classes never hold one. */
function splitSegments(glob: string): string[] {
  const segments: string[] = [];
  let current = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "/" || (char === "\\" && glob[i + 1] === "/")) {
      segments.push(current);
      current = "";
      if (char === "\\") i++;
    } else if (char === "\\") {
      current += glob.slice(i, i + 2);
      i++;
    } else current += char;
  }
  segments.push(current);
  return segments;
}

function matchPathPattern(pattern: PathPattern, segments: string[], counter: StepCounter | undefined): boolean {
  const { head, tail, middle } = pattern;
  if (middle.length === 0 ? segments.length !== head.length : segments.length < pattern.minSegments) return false;
  for (let i = 0; i < head.length; i++) if (!matchSegment(head[i]!, segments[i]!, counter)) return false;
  const tailStart = segments.length - tail.length;
  for (let i = 0; i < tail.length; i++) if (!matchSegment(tail[i]!, segments[tailStart + i]!, counter)) return false;
  return middle.length <= 1 || matchMiddle(middle, segments, head.length, tailStart, counter);
}

/** The greedy algorithm one level up: `**` is the star, a path segment the item. */
function matchMiddle(middle: SegmentPattern[], segments: string[], from: number, to: number, counter: StepCounter | undefined): boolean {
  return greedyMatch(middle.length, from, to, (p) => middle[p] === GLOBSTAR, (p, s) => matchSegment(middle[p]!, segments[s]!, counter), counter);
}
