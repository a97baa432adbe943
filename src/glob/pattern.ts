/**
 * A plain glob (braces already expanded) compiled for compile.ts: split into
 * `/` segments, a whole `**` segment matching zero or more path segments and
 * any other segment exactly one; match.ts matches it at both levels.
 */
import { classEnd, escaped, parseClass, type CharClass } from "./char-class.js";

/** Counts the matcher's work, so a test can prove the bound without a clock. */
export interface StepCounter {
  steps: number;
}

// ---------------------------------------------------------------- one path segment

/** Token codes within a segment: a character's code (≥ 0), or one of these; classes are CLASS_BASE - index. */
export const ANY_CHAR = -1;
export const STAR = -2;
export const CLASS_BASE = -3;

export type SegmentPattern =
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
      /**
       * When a class of the middle also matches its own text (`[id]`: `i`, `d` or `[id]`): where each token's places
       * start in match.ts's `matchPlaces`, one per token and one more per character of such a class's text after the
       * first; the last entry is the end. Absent otherwise: every token then takes one character.
       */
      placeStarts?: number[];
    }
  | { kind: "globstar" };

export const GLOBSTAR: SegmentPattern = { kind: "globstar" };
const STAR_SEGMENT: SegmentPattern = { kind: "star" };

function compileSegment(text: string): SegmentPattern | string {
  if (text === "**") return GLOBSTAR;
  // Most segments are names (`src`, `components`) or a star and a name's end (`*.ts`): nothing to tokenise.
  if (!/[\\*?[]/.test(text)) return { kind: "literal", text };
  if (text.length > 1 && text[0] === "*" && !/[\\*?[]/.test(text.slice(1))) return starThen(text.slice(1));
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
  const placeStarts = placeStartsOf(middle, classes);
  return {
    kind: "wildcard",
    prefix: String.fromCharCode(...tokens.slice(0, start)),
    suffix: String.fromCharCode(...tokens.slice(end)),
    tokens: middle,
    classes,
    minLength: tokens.filter((token) => token !== STAR).length,
    starOnly: middle.length === 1 && middle[0] === STAR,
    ...(placeStarts ? { placeStarts } : {}),
  };
}

/** `*` then literal `suffix`, as the general path below compiles it. */
const starThen = (suffix: string): SegmentPattern => ({
  kind: "wildcard",
  prefix: "",
  suffix,
  tokens: [STAR],
  classes: [],
  minLength: suffix.length,
  starOnly: true,
});

/** The `placeStarts` of a segment's middle tokens; undefined when no class of them matches its own text. */
function placeStartsOf(tokens: number[], classes: CharClass[]): number[] | undefined {
  const starts: number[] = [];
  let next = 0;
  let someLiteral = false;
  for (const token of tokens) {
    starts.push(next);
    const literal = token <= CLASS_BASE ? classes[CLASS_BASE - token]!.literal : undefined;
    if (literal !== undefined) someLiteral = true;
    next += literal === undefined ? 1 : literal.length;
  }
  starts.push(next);
  return someLiteral ? starts : undefined;
}

// ---------------------------------------------------------------- a whole path

export interface PathPattern {
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
export function starBeforeTrailingGlobstar(glob: string): boolean {
  let end = glob.length;
  while (end >= 3 && glob.startsWith("/**", end - 3)) end -= 3;
  return end < glob.length && end > 0 && glob[end - 1] === "*" && !escaped(glob, end - 1);
}

export function compilePathPattern(glob: string, anyDepth: boolean, folderNeedsChild: boolean): PathPattern | string {
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
  if (!glob.includes("\\")) return glob.split("/");
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
