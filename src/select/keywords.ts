/**
 * Keyword matching in the user's prompt: whole words, case-insensitive,
 * Unicode-aware. Scripts written without spaces between words (Chinese,
 * Japanese) have no word boundaries, so a keyword in them matches as a substring.
 */
const NO_WORD_BOUNDARIES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

const compiled = new Map<string, (text: string) => boolean>();

function matcherFor(keyword: string): (text: string) => boolean {
  let matcher = compiled.get(keyword);
  if (!matcher) {
    const needle = keyword.trim().toLowerCase();
    if (needle === "") matcher = () => false;
    else if (NO_WORD_BOUNDARIES.test(needle)) matcher = (text) => text.toLowerCase().includes(needle);
    else {
      const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}_])${escaped}(?![\\p{L}\\p{N}\\p{M}_])`, "iu");
      matcher = (text) => pattern.test(text);
    }
    compiled.set(keyword, matcher);
  }
  return matcher;
}

const WORD_CHARS = /^[\p{L}\p{N}\p{M}_]+$/u;
const NON_WORD = /[^\p{L}\p{N}\p{M}_]+/u;

/** The words of the last prompt looked at: one split per prompt, then a set lookup per single-word keyword. */
let lastText: string | undefined;
let lastWords = new Set<string>();

function wordsOf(text: string): Set<string> {
  if (text !== lastText) {
    lastText = text;
    lastWords = new Set(text.toLowerCase().split(NON_WORD));
  }
  return lastWords;
}

/** The first keyword found in `text`, or undefined. */
export function matchingKeyword(text: string, keywords: readonly string[]): string | undefined {
  return keywords.find((keyword) => {
    const needle = keyword.trim().toLowerCase();
    if (WORD_CHARS.test(needle) && !NO_WORD_BOUNDARIES.test(needle)) return wordsOf(text).has(needle);
    return matcherFor(keyword)(text);
  });
}
