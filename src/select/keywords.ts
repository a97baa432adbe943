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
    const needle = keyword.trim().toLocaleLowerCase();
    if (needle === "") matcher = () => false;
    else if (NO_WORD_BOUNDARIES.test(needle)) matcher = (text) => text.toLocaleLowerCase().includes(needle);
    else {
      const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}_])${escaped}(?![\\p{L}\\p{N}\\p{M}_])`, "iu");
      matcher = (text) => pattern.test(text);
    }
    compiled.set(keyword, matcher);
  }
  return matcher;
}

/** The first keyword found in `text`, or undefined. */
export function matchingKeyword(text: string, keywords: readonly string[]): string | undefined {
  return keywords.find((keyword) => matcherFor(keyword)(text));
}
