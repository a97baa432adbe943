/**
 * Keyword matching in the user's prompt: whole words, case-insensitive,
 * Unicode-aware. Scripts written without spaces between words (Chinese,
 * Japanese) have no word boundaries, so a keyword in them matches as a substring.
 *
 * No regular expression is built per keyword: a prompt is lowercased, split
 * into words and case-folded once (case-fold.ts), then each keyword is a set
 * lookup or a string search. A keyword of several words or with punctuation
 * (`topic-5`, `c++`) matches as the expression
 * `(?<![\p{L}\p{N}\p{M}_])keyword(?![\p{L}\p{N}\p{M}_])` with flags `iu` would.
 * `KeywordIndex` finds, for one prompt, the keywords of a whole rule set that
 * match, at a cost that follows the prompt, not the number of keywords.
 */
import { foldText, isAscii, isHighSurrogate, isLowSurrogate, wordCharAt, wordCharBefore } from "./case-fold.js";

const NO_WORD_BOUNDARIES =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD_CHARS = /^[\p{L}\p{N}\p{M}_]+$/u;
const NON_WORD = /[^\p{L}\p{N}\p{M}_]+/u;
/** NON_WORD in text of ASCII only (no marks there): the same split, without compiling Unicode's classes at every start. */
const NON_WORD_ASCII = /[^A-Za-z0-9_]+/;

/** How one keyword is looked for. */
type Needle =
  /** Empty once trimmed: never matches. */
  | { kind: "never" }
  /** A single word: one of the lowercased prompt's words. */
  | { kind: "word"; word: string }
  /** In a script without word boundaries: a substring of the lowercased prompt. */
  | { kind: "substring"; text: string }
  /** Anything else: case-folded, between word boundaries; `lead` is its leading word, if it starts with one. */
  | { kind: "phrase"; folded: string; lead: string };

/** Needles by keyword; cleared when it grows past this, so hostile rules cannot grow it without end. */
const MAX_CACHED = 10_000;
const needles = new Map<string, Needle>();

function needleFor(keyword: string): Needle {
  let needle = needles.get(keyword);
  if (!needle) {
    if (needles.size >= MAX_CACHED) needles.clear();
    needle = makeNeedle(keyword.trim().toLowerCase());
    needles.set(keyword, needle);
  }
  return needle;
}

const ASCII_WORD = /^[a-z0-9_]+$/;
const ASCII_LEAD = /^[a-z0-9_]*/;

function makeNeedle(text: string): Needle {
  if (text === "") return { kind: "never" };
  if (isAscii(text)) {
    // Lowercase ASCII folds to itself, no script without word boundaries is in it, and its word characters are `[a-z0-9_]`.
    if (ASCII_WORD.test(text)) return { kind: "word", word: text };
    return { kind: "phrase", folded: text, lead: (ASCII_LEAD.exec(text) as RegExpExecArray)[0] };
  }
  if (NO_WORD_BOUNDARIES.test(text)) return { kind: "substring", text };
  if (WORD_CHARS.test(text)) return { kind: "word", word: text };
  const folded = foldText(text);
  return { kind: "phrase", folded, lead: folded.split(NON_WORD)[0] ?? "" };
}

/** What a prompt offers keywords, each part made when first needed. */
interface PromptView {
  text: string;
  lower?: string;
  /** Words of the lowercased prompt. */
  words?: Set<string>;
  folded?: string;
  /** Words of the case-folded prompt. */
  leads?: Set<string>;
}

/** The last prompt looked at: every keyword of a message is looked for in the same one. */
let last: PromptView = { text: "" };

function viewOf(text: string): PromptView {
  if (last.text !== text) last = { text };
  return last;
}

const lowerOf = (view: PromptView) => (view.lower ??= view.text.toLowerCase());
const wordsOf = (view: PromptView) => (view.words ??= new Set(lowerOf(view).split(nonWordIn(lowerOf(view)))));
const foldedOf = (view: PromptView) => (view.folded ??= foldText(view.text));
const leadsOf = (view: PromptView) => (view.leads ??= new Set(foldedOf(view).split(nonWordIn(foldedOf(view)))));
const nonWordIn = (text: string) => (isAscii(text) ? NON_WORD_ASCII : NON_WORD);

function needleIn(needle: Needle, view: PromptView): boolean {
  switch (needle.kind) {
    case "never":
      return false;
    case "word":
      return wordsOf(view).has(needle.word);
    case "substring":
      return lowerOf(view).includes(needle.text);
    case "phrase":
      return phraseIn(needle.folded, view);
  }
}

/** Whether `folded` occurs in the folded prompt on whole code points, with no word character either side. */
function phraseIn(folded: string, view: PromptView): boolean {
  const { text } = view;
  const haystack = foldedOf(view);
  const startsLow = isLowSurrogate(folded.charCodeAt(0));
  const endsHigh = isHighSurrogate(folded.charCodeAt(folded.length - 1));
  for (let at = haystack.indexOf(folded); at >= 0; at = haystack.indexOf(folded, at + 1)) {
    const end = at + folded.length;
    // A lone surrogate of the keyword never matches half of a pair.
    if (startsLow && at > 0 && isHighSurrogate(text.charCodeAt(at - 1))) continue;
    if (endsHigh && isLowSurrogate(text.charCodeAt(end))) continue;
    if (!wordCharBefore(text, at) && !wordCharAt(text, end)) return true;
  }
  return false;
}

/** The first keyword found in `text`, or undefined. */
export function matchingKeyword(text: string, keywords: readonly string[]): string | undefined {
  if (keywords.length === 0) return undefined;
  const view = viewOf(text);
  return keywords.find((keyword) => needleIn(needleFor(keyword), view));
}

/** Values filed under keywords; `matching(prompt)` gives those with a keyword found in the prompt. */
export interface KeywordIndex<T> {
  add(keyword: string, value: T): void;
  /** The values with a keyword found in `text`, each once. */
  matching(text: string): Set<T>;
}

export function keywordIndex<T>(): KeywordIndex<T> {
  const byWord = new Map<string, Array<[Needle, T]>>();
  const byLead = new Map<string, Array<[Needle, T]>>();
  /** Needles with no word to file them under: each is looked for in every prompt. */
  const scanned: Array<[Needle, T]> = [];
  return {
    add(keyword, value) {
      const needle = needleFor(keyword);
      if (needle.kind === "never") return;
      const key = needle.kind === "word" ? needle.word : needle.kind === "phrase" ? needle.lead : "";
      const map = needle.kind === "word" ? byWord : byLead;
      if (key === "") scanned.push([needle, value]);
      else {
        const entries = map.get(key);
        if (entries) entries.push([needle, value]);
        else map.set(key, [[needle, value]]);
      }
    },
    matching(text) {
      const view = viewOf(text);
      const found = new Set<T>();
      const look = (entries: ReadonlyArray<[Needle, T]> | undefined) => {
        for (const [needle, value] of entries ?? []) if (!found.has(value) && needleIn(needle, view)) found.add(value);
      };
      // A word keyword's only word is its own; a phrase starting with a word has that word at its place in the folded prompt.
      if (byWord.size > 0) for (const word of wordsOf(view)) look(byWord.get(word));
      if (byLead.size > 0) for (const lead of leadsOf(view)) look(byLead.get(lead));
      look(scanned);
      return found;
    },
  };
}
