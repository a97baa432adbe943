/**
 * Case folding as a case-insensitive Unicode regular expression (flags `iu`)
 * compares characters, without one regular expression per keyword: two code
 * points match under `iu` exactly when `foldCodePoint` gives them the same
 * value. A folded code point keeps its UTF-16 length, so an index into folded
 * text is an index into the text.
 *
 * test/select/case-fold.test.ts checks both claims over every code point.
 */

/** Whether two characters are equal under `iu`: a back-reference compares them as the flags do. */
const SAME_UNDER_IU = /^(.)\1$/isu;

/**
 * Pairs that Unicode 15.1 made equal under case folding although neither
 * maps to the other in upper or lower case: the first folds to the second
 * where the running engine agrees (SAME_UNDER_IU checks it).
 */
const EXTRA_FOLDS: ReadonlyMap<number, number> = new Map([
  [0x1fd3, 0x0390],
  [0x1fe3, 0x03b0],
  [0xfb06, 0xfb05],
]);

/** Folded code points seen so far, beyond ASCII; cleared when it grows past this. */
const MAX_CACHED = 20_000;
const folded = new Map<number, number>();

/** The value `code` shares with every code point it equals under `iu`, and with no other. */
export function foldCodePoint(code: number): number {
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
  let result = folded.get(code);
  if (result === undefined) {
    if (folded.size >= MAX_CACHED) folded.clear();
    result = computeFold(code);
    folded.set(code, result);
  }
  return result;
}

function computeFold(code: number): number {
  const char = String.fromCodePoint(code);
  const extra = EXTRA_FOLDS.get(code);
  const candidates = [
    extra === undefined ? "" : String.fromCodePoint(extra),
    char.toUpperCase().toLowerCase(),
    char.toLowerCase(),
  ];
  for (const candidate of candidates) {
    // One code point of the same length, equal to `char` under `iu`: the first such is the class's value.
    if (candidate.length !== char.length || candidate === char) continue;
    const first = candidate.codePointAt(0) as number;
    if (String.fromCodePoint(first) === candidate && SAME_UNDER_IU.test(char + candidate)) return first;
  }
  return code;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, control characters included
const ASCII = /^[\x00-\x7f]*$/;

export function isAscii(text: string): boolean {
  return ASCII.test(text);
}

/** `text` with every code point folded: the same length, index for index. */
export function foldText(text: string): string {
  if (isAscii(text)) return text.toLowerCase();
  const parts: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i) as number;
    if (code > 0xffff) i++;
    parts.push(String.fromCodePoint(foldCodePoint(code)));
  }
  return parts.join("");
}

/** A letter, number, mark or `_`: what a keyword's boundary must not be (under `iu` too: the class is closed under folding). */
export const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;

/** Whether the code point that ends just before `index` is a word character (false at the start). */
export function wordCharBefore(text: string, index: number): boolean {
  if (index <= 0) return false;
  const start =
    index >= 2 && isLowSurrogate(text.charCodeAt(index - 1)) && isHighSurrogate(text.charCodeAt(index - 2))
      ? index - 2
      : index - 1;
  return isWordAt(text, start);
}

/** Whether the code point that starts at `index` is a word character (false at the end). */
export function wordCharAt(text: string, index: number): boolean {
  return index < text.length && isWordAt(text, index);
}

function isWordAt(text: string, index: number): boolean {
  const code = text.codePointAt(index) as number;
  if (code < 0x80)
    return (
      (code >= 0x30 && code <= 0x39) ||
      (code >= 0x41 && code <= 0x5a) ||
      (code >= 0x61 && code <= 0x7a) ||
      code === 0x5f
    );
  return WORD_CHAR.test(String.fromCodePoint(code));
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
