import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { keywordIndex, matchingKeyword } from "../../src/conditions/keyword-match.js";

/** The matcher as it was, one regular expression per keyword: what the string search must agree with. */
function regexMatchingKeyword(text: string, keywords: readonly string[]): string | undefined {
  const noBoundaries =
    /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
  const words = new Set(text.toLowerCase().split(/[^\p{L}\p{N}\p{M}_]+/u));
  return keywords.find((keyword) => {
    const needle = keyword.trim().toLowerCase();
    if (/^[\p{L}\p{N}\p{M}_]+$/u.test(needle) && !noBoundaries.test(needle)) return words.has(needle);
    if (needle === "") return false;
    if (noBoundaries.test(needle)) return text.toLowerCase().includes(needle);
    const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return new RegExp(`(?<![\\p{L}\\p{N}\\p{M}_])${escaped}(?![\\p{L}\\p{N}\\p{M}_])`, "iu").test(text);
  });
}

/** Characters where lowercasing and case-insensitive matching part ways, and other edges. */
const TRICKY = [
  "ſ",
  "S",
  "s",
  "K",
  "k",
  "\u212a",
  "ΐ",
  "\u1fd3",
  "ΰ",
  "\u1fe3",
  "ﬅ",
  "ﬆ",
  "İ",
  "i",
  "ı",
  "I",
  "ς",
  "σ",
  "Σ",
  "ß",
  "ẞ",
  "é",
  "É",
  "e\u0301",
  "\u0345",
  "ι",
];
const OTHERS = [
  "𐐀",
  "𐐨",
  "\ud801",
  "\udc00",
  "数",
  "据",
  "-",
  " ",
  ".",
  "_",
  "+",
  "1",
  "١",
  "\u200b",
  "Ꭰ",
  "ꭰ",
  "ǅ",
  "ǆ",
  "Ǆ",
  "ϐ",
  "β",
  "µ",
  "μ",
  "Å",
  "\u212b",
  "c++",
  "topic-5",
  ".net",
];
const piece = fc.oneof(
  fc.constantFrom(...TRICKY, ...OTHERS),
  fc.string({ unit: "grapheme", maxLength: 3 }),
  fc.string({ unit: "binary", maxLength: 2 }),
  fc.stringMatching(/^[a-zA-Z]{1,4}$/),
);
const phrase = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(""));
/** `text` with the case of each character changed or not, as `mask` says. */
const recased = (text: string, mask: number) =>
  [...text].map((char, i) => ((mask >> (i % 31)) & 1 ? char.toUpperCase() : char.toLowerCase())).join("");

describe("keywords in the user's prompt", () => {
  test("match whole words, case-insensitively", () => {
    expect(matchingKeyword("Please write the Migration for users", ["migration"])).toBe("migration");
    expect(matchingKeyword("MIGRATION!", ["migration"])).toBe("migration");
    expect(matchingKeyword("the migrations folder", ["migration"])).toBeUndefined();
    expect(matchingKeyword("premigration step", ["migration"])).toBeUndefined();
    expect(matchingKeyword("snake_case_sql here", ["sql"])).toBeUndefined();
  });

  test("are Unicode-aware: accents and other scripts are letters, not boundaries", () => {
    expect(matchingKeyword("über die Größe", ["größe"])).toBe("größe");
    expect(matchingKeyword("la caféine", ["café"])).toBeUndefined();
    expect(matchingKeyword("un café noir", ["CAFÉ"])).toBe("CAFÉ");
    expect(matchingKeyword("ügyfél tábla", ["ügyfél"])).toBe("ügyfél");
  });

  test("CJK keywords match as substrings, since those scripts have no word boundaries", () => {
    expect(matchingKeyword("请帮我修改数据库迁移脚本", ["数据库"])).toBe("数据库");
    expect(matchingKeyword("データベースを更新して", ["データベース"])).toBe("データベース");
    expect(matchingKeyword("请帮我写文档", ["数据库"])).toBeUndefined();
  });

  test("multi-word keywords and regex characters are matched literally", () => {
    expect(matchingKeyword("use the read only role", ["read only"])).toBe("read only");
    expect(matchingKeyword("c++ templates", ["c++"])).toBe("c++");
    expect(matchingKeyword("cxx templates", ["c++"])).toBeUndefined();
  });

  test("property: a latin keyword matches iff it occurs surrounded by non-letters (reference matcher)", () => {
    const word = fc.stringMatching(/^[a-z]{1,6}$/);
    const text = fc
      .array(fc.oneof(word, fc.constantFrom(" ", ".", ",", "-", "_", "1", "É", "é")), { maxLength: 12 })
      .map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(word, text, (keyword, prompt) => {
        const lower = prompt.toLowerCase();
        let expected = false;
        for (let i = lower.indexOf(keyword); i >= 0; i = lower.indexOf(keyword, i + 1)) {
          const before = lower[i - 1];
          const after = lower[i + keyword.length];
          const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}_]/u.test(char);
          if (!isWordChar(before) && !isWordChar(after)) expected = true;
        }
        expect(matchingKeyword(prompt, [keyword]) !== undefined).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  test("property: the same answer as one case-insensitive Unicode regular expression per keyword", () => {
    fc.assert(
      fc.property(phrase, phrase, phrase, fc.integer(), fc.boolean(), (keyword, before, after, mask, inside) => {
        // Half the prompts hold the keyword, its case changed here and there.
        const prompt = inside ? before + recased(keyword, mask) + after : before + after;
        const expected = regexMatchingKeyword(prompt, [keyword]);
        expect(matchingKeyword(prompt, [keyword])).toBe(expected);
        const index = keywordIndex<string>();
        index.add(keyword, "rule");
        expect(index.matching(prompt).has("rule")).toBe(expected !== undefined);
      }),
      { numRuns: 3000 },
    );
  });

  test("the edges: lowercasing is not case folding, and a lone surrogate never matches half of a pair", () => {
    const cases: Array<[string, string]> = [
      ["ſ-x", "S-X"],
      ["k-1", "\u212a-1"],
      ["ΐ-a", "\u1fd3-A"],
      ["ﬅ.", "ﬆ."],
      ["i-x", "İ-x"],
      ["σ-x", "ς-x"],
      ["ß-x", "ẞ-X"],
      ["\udc00-x", "\ud801\udc00-x"],
      ["a-\ud801", "a-\ud801\udc00"],
      ["c++", "c++x"],
      ["c++", "use c++."],
      [".net", "x.net"],
      ["é-x", "e\u0301-x"],
    ];
    for (const [keyword, prompt] of cases)
      expect(matchingKeyword(prompt, [keyword]), `${keyword} in ${prompt}`).toBe(
        regexMatchingKeyword(prompt, [keyword]),
      );
  });

  test("an index of many keywords finds, for one prompt, the values of those that match, each once", () => {
    const index = keywordIndex<number>();
    const keywords = ["deploy", "topic-5", "c++", "read only", ".net", "数据库", "", "Größe", "kw7"];
    for (const [i, keyword] of keywords.entries()) index.add(keyword, i);
    index.add("DEPLOY", 0);
    const prompt = "Deploy topic-5 with C++ and .NET, read-only; 请修改数据库 größe";
    expect([...index.matching(prompt)].sort()).toEqual(
      keywords.flatMap((keyword, i) => (regexMatchingKeyword(prompt, [keyword]) ? [i] : [])).sort(),
    );
    expect(index.matching("nothing here").size).toBe(0);
  });
});
