import { describe, expect, test } from "vitest";
import { foldCodePoint, foldText, WORD_CHAR } from "../../src/conditions/case-fold.js";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");

/** Every code point but the surrogates, as one string each. */
function everyCodePoint(): string[] {
  const chars: string[] = [];
  for (let code = 0; code <= 0x10ffff; code++)
    if (code < 0xd800 || code > 0xdfff) chars.push(String.fromCodePoint(code));
  return chars;
}

describe("case folding as the `iu` flags compare characters, checked over every code point", () => {
  const all = everyCodePoint();
  // Characters with a case, or that fold: the only ones a case-insensitive expression can equate with another.
  const cased = all.filter(
    (char) =>
      char.toLowerCase() !== char ||
      char.toUpperCase() !== char ||
      foldCodePoint(char.codePointAt(0)!) !== char.codePointAt(0),
  );
  const fold = (char: string) => foldCodePoint(char.codePointAt(0)!);

  test("two cased characters fold alike exactly when a literal `iu` expression of one matches the other", () => {
    const joined = cased.join("\u0000");
    const at = new Map<number, string>();
    let offset = 0;
    for (const char of cased) {
      at.set(offset, char);
      offset += char.length + 1;
    }
    const groups = new Map<number, string[]>();
    for (const char of cased) groups.set(fold(char), [...(groups.get(fold(char)) ?? []), char]);
    for (const char of cased) {
      const matched = [...joined.matchAll(new RegExp(escapeRegExp(char), "giu"))].map((match) => at.get(match.index));
      expect(matched, `U+${char.codePointAt(0)!.toString(16)}`).toEqual(groups.get(fold(char)));
    }
  });

  test("no character without a case equals a cased one, and folding keeps every length", () => {
    const isCased = new Set(cased);
    const uncased = all.filter((char) => !isCased.has(char));
    expect(new RegExp(`[${cased.map(escapeRegExp).join("")}]`, "iu").test(uncased.join(""))).toBe(false);
    expect(cased.filter((char) => String.fromCodePoint(fold(char)).length !== char.length)).toEqual([]);
    expect(foldText(all.join("")).length).toBe(all.join("").length);
  });

  test("letters, numbers, marks and `_` are the same set with and without `i`, and folding keeps a character in or out of it", () => {
    const text = all.join("");
    expect(text.replace(new RegExp(WORD_CHAR.source, "gu"), "\u0000")).toBe(
      text.replace(new RegExp(WORD_CHAR.source, "giu"), "\u0000"),
    );
    expect(cased.filter((char) => WORD_CHAR.test(char) !== WORD_CHAR.test(String.fromCodePoint(fold(char))))).toEqual(
      [],
    );
  });

  test("foldText folds code point by code point, lone surrogates kept", () => {
    expect(foldText("ÉCOLE Straße ΣΑΣ \u212a \ud801\udc00 \ud800x")).toBe("école straße σασ k \ud801\udc28 \ud800x");
    expect(foldText("ABC-def")).toBe("abc-def");
  });
});
