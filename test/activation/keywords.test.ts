import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { matchingKeyword } from "../../src/select/keywords.js";

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
    const text = fc.array(fc.oneof(word, fc.constantFrom(" ", ".", ",", "-", "_", "1", "É", "é")), { maxLength: 12 }).map((pieces) => pieces.join(""));
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
});
