/**
 * A prompt of ASCII only is read with ASCII classes (paths.ts, mentions.ts,
 * keyword-match.ts), so a fresh process does not compile Unicode's letter
 * classes at every start. Such a prompt must read exactly as it does with the
 * Unicode expressions: the same prompt with a non-ASCII word after it takes
 * those, and that word adds nothing.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { matchingKeyword } from "../../src/conditions/keyword-match.js";
import { atTokens } from "../../src/select/mentions.js";
import { pathCandidatesInPrompt } from "../../src/session/paths.js";

/** Path-ish text: letters, digits and every character the expressions treat apart. */
const promptText = fc
  .array(fc.constantFrom(..."aZz09_-./~@()\"',;:!?#*\\ \n\t".split(""), "src/", ".ts", "@app", "Ab1"), {
    maxLength: 60,
  })
  .map((parts) => parts.join(""));
const UNICODE_TAIL = " é";

describe("a prompt of ASCII only reads as the Unicode expressions read it", () => {
  test("the paths it names", () => {
    fc.assert(
      fc.property(promptText, (prompt) => {
        expect(pathCandidatesInPrompt(prompt)).toEqual(pathCandidatesInPrompt(prompt + UNICODE_TAIL));
      }),
      { numRuns: 3000 },
    );
  });

  test("its @ mentions", () => {
    fc.assert(
      fc.property(promptText, (prompt) => {
        expect(atTokens(prompt)).toEqual(atTokens(prompt + UNICODE_TAIL));
      }),
      { numRuns: 3000 },
    );
  });

  test("the keywords it holds", () => {
    const keyword = fc.constantFrom("a", "z0", "Ab1", "app", "src", "ts", "a-b", "c++", "x_y", "09");
    fc.assert(
      fc.property(promptText, fc.array(keyword, { minLength: 1, maxLength: 4 }), (prompt, keywords) => {
        expect(matchingKeyword(prompt, keywords)).toEqual(matchingKeyword(prompt + UNICODE_TAIL, keywords));
      }),
      { numRuns: 3000 },
    );
  });

  test("a few by hand, both ways", () => {
    for (const tail of ["", UNICODE_TAIL]) {
      expect(pathCandidatesInPrompt(`fix src/app.ts and ./lib/x.js, then docs/guide/${tail}`)).toEqual([
        "src/app.ts",
        "./lib/x.js",
        "docs/guide/",
      ]);
      expect(atTokens(`ask @style and mail me@example.com${tail}`)).toEqual(["style"]);
      expect(matchingKeyword(`Deploy_now to prod${tail}`, ["deploy", "prod"])).toBe("prod");
    }
  });
});
