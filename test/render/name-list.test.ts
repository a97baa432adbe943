import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { leftOutFrame, leftOutName, renderLeftOutSection, type LeftOutEntry } from "../../src/render/message.js";
import { longestPrefix, nameList } from "../../src/render/name-list.js";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** Fitting by rendering every try, as the composer did: what the sized tries must agree with. */
function renderedFit(entries: readonly LeftOutEntry[], limit: number, maxNamed: number): string {
  const all = renderLeftOutSection(entries, 0);
  if (bytes(all) <= limit) return all;
  const named = longestPrefix(
    Math.min(entries.length - 1, maxNamed),
    (k) => bytes(renderLeftOutSection(entries.slice(0, k), entries.length - k)) <= limit,
  );
  return renderLeftOutSection(entries.slice(0, named), entries.length - named);
}

const entry = fc.record({
  name: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("a b\n<c>", "ü", "𐐀x")),
  changed: fc.boolean(),
});
const listOf = (entries: readonly LeftOutEntry[]) =>
  nameList(entries.length, (i) => leftOutName(entries[i] as LeftOutEntry), leftOutFrame);

describe("a list of names sized from its names, rendered once", () => {
  test("property: each size is the rendered list's, and the list fitted is the one found by rendering every try", () => {
    fc.assert(
      fc.property(
        fc.array(entry, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: -10, max: 3000 }),
        fc.integer({ min: 0, max: 50 }),
        (entries, limit, maxNamed) => {
          const list = listOf(entries);
          for (let k = 0; k <= entries.length; k++) {
            const more = k === entries.length ? 0 : entries.length - k;
            expect(list.bytes(k)).toBe(bytes(renderLeftOutSection(entries.slice(0, k), more)));
          }
          expect(listOf(entries).fit(limit, maxNamed)).toBe(renderedFit(entries, limit, maxNamed));
          const allowance = Math.max(0, limit);
          const reserve = Math.min(
            bytes(renderLeftOutSection(entries, 0)),
            bytes(renderLeftOutSection([], entries.length)) + allowance,
          );
          expect(listOf(entries).reserve(allowance)).toBe(reserve);
        },
      ),
      { numRuns: 1000 },
    );
  });

  test("names are looked at only as far as a size needs them", () => {
    const asked = new Set<number>();
    const list = nameList(
      10_000,
      (i) => {
        asked.add(i);
        return `rule-${i}`;
      },
      leftOutFrame,
    );
    expect(list.fit(500, 200)).toMatch(
      /^Also in force, left out of this message to keep it short: rule-0, rule-1, .* and 9,9\d\d more not named here\./,
    );
    expect(asked.size).toBeLessThan(100);
  });
});
