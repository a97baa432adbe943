/**
 * Brace and extglob expansion, the matcher's first step (compile.ts):
 * `{a,b}`, `{1..5}`, `{a..e}`, `@(a|b)` and `?(a|b)` become the plain globs
 * they stand for, counted before they are expanded so that no glob can expand
 * to more than a limit.
 */
import { classEnd, escaped } from "./char-class.js";

export const MAX_ALTERNATIVES = 256;
/** All alternatives together: bounds the memory a compiled glob holds. */
const MAX_EXPANDED_LENGTH = 8192;

/** The plain globs `glob` stands for, or why it cannot be expanded. */
export function expandGlob(glob: string): string[] | string {
  const expanded = expandBraces(glob, MAX_ALTERNATIVES);
  if (typeof expanded === "string") return expanded;
  const alternatives = [...new Set(expanded)];
  const total = alternatives.reduce((sum, alternative) => sum + alternative.length, 0);
  if (total > MAX_EXPANDED_LENGTH) return `its braces expand to more than ${MAX_EXPANDED_LENGTH} characters`;
  return alternatives;
}

/** A piece of a glob before expansion: literal glob text, or a choice between sequences. */
type Piece = string | Piece[][];

interface Expansion {
  pairs: Map<number, number>;
  /** The most alternatives the glob may stand for; a range's items count too. */
  limit: number;
  problem?: string;
}

/**
 * The plain globs `glob` stands for, duplicates included, or why it cannot be expanded into at most `limit` of them.
 */
function expandBraces(glob: string, limit: number): string[] | string {
  const pairs = pairGroups(glob);
  if (typeof pairs === "string") return pairs;
  // No group: the glob stands for itself (most rule globs; parsing it would rebuild the same text a character at a time).
  if (pairs.size === 0) return [glob];
  const context: Expansion = { pairs, limit };
  const [pieces = []] = parseSequences(glob, 0, glob.length, "", context);
  if (context.problem) return context.problem;
  if (countOf(pieces, limit) > limit) return `its braces expand to more than ${limit} alternatives`;
  return expandPieces(pieces);
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
      else if (before === "*" || before === "+" || before === "!")
        return `the extglob "${before}(…)" is not supported; use {a,b} or @(a|b)`;
    }
  }
  return pairs;
}

/** `glob[from, to)` split at top-level `separator`s into sequences of pieces. */
function parseSequences(
  glob: string,
  from: number,
  to: number,
  separator: "," | "|" | "",
  context: Expansion,
): Piece[][] {
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
  const range = expandRange(glob.slice(open + 1, close), context.limit);
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
function expandRange(text: string, limit: number): string[] | string | undefined {
  const numbers = NUMBER_RANGE.exec(text);
  const letters = numbers ? undefined : LETTER_RANGE.exec(text);
  if (!numbers && !letters) return undefined;
  const first = numbers ? Number(numbers[1]) : text.charCodeAt(0);
  const last = numbers ? Number(numbers[2]) : text.charCodeAt(3);
  const step = Math.abs(Number((numbers ? numbers[3] : letters![2]) ?? 1)) || 1;
  const count = Math.floor(Math.abs(last - first) / step) + 1;
  if (count > limit) return `the range {${text}} has more than ${limit} items`;
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

/** How many alternatives `pieces` expand to, counted without expanding and saturating past `limit`. */
function countOf(pieces: Piece[], limit: number): number {
  let product = 1;
  for (const piece of pieces) {
    if (typeof piece === "string") continue;
    const sum = piece.reduce((total, option) => total + countOf(option, limit), 0);
    product = Math.min(product * sum, limit + 1);
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
