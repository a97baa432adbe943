/**
 * Reading glob text: backslash escapes and character classes (`[!a-z_]`,
 * `[[:alpha:]]`), for the brace expansion (expand.ts) and the segment
 * compiler (pattern.ts). A class never spans a `/`.
 */

/** Whether the character at `index` is escaped by an odd run of backslashes before it. */
export function escaped(glob: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && glob[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 1;
}

export interface CharClass {
  negated: boolean;
  /** Inclusive UTF-16 code ranges, flattened: [low, high, low, high, …]. */
  ranges: number[];
  /**
   * The class's own text (`[id]`), which it also matches, as micromatch reads it: a folder named `[locale]` or `[id]`
   * (Next.js, SvelteKit) matches `app/[locale]/**`. Only for a class holding neither a backslash nor one of the
   * characters micromatch reads as regular-expression syntax, and not negated: not `[a-z]`, `[^a]`, `[!a]`, `[...slug]`.
   */
  literal?: string;
}

/** What keeps micromatch from letting a class match its own text: its regular-expression characters, and escapes. */
const NOT_LITERAL = /[-*+?.^${}()|[\]\\]/;

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
export function classEnd(glob: string, open: number): number {
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
export function parseClass(glob: string, open: number, end: number): CharClass | string {
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
  const literal = negated || NOT_LITERAL.test(glob.slice(open + 1, last)) ? undefined : glob.slice(open, end);
  return literal === undefined ? { negated, ranges } : { negated, ranges, literal };
}

/** One member character of a class (a backslash escapes it) and the index after it. */
function classChar(glob: string, i: number): [number, number] {
  if (glob[i] === "\\" && i + 1 < glob.length) return [glob.charCodeAt(i + 1), i + 2];
  return [glob.charCodeAt(i), i + 1];
}
