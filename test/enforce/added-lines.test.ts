import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { linesAdded, linesOf } from "../../src/enforce/added-lines.js";

/** Lines from a small alphabet, so that texts share lines and repeat them. */
const line = fc.constantFrom("", "a", "b", "  c", "console.log(x)", "console.log(x) ", "return 1;");
const lines = fc.array(line, { maxLength: 30 });
const newline = fc.constantFrom("\n", "\r\n");
const textOf = (of: readonly string[], eol = "\n", final = true) =>
  of.length === 0 ? "" : of.join(eol) + (final ? eol : "");
const text = fc.tuple(lines, newline, fc.boolean()).map(([of, eol, final]) => textOf(of, eol, final));

const countOf = (of: readonly string[], wanted: string) => of.filter((item) => item === wanted).length;

describe("the lines a change adds", () => {
  test("a line appended to a file is the one line added, at its line number", () => {
    expect(linesAdded("import x;\nconsole.log(x);\n", "import x;\nconsole.log(x);\nconsole.log(y);\n")).toEqual([
      { text: "console.log(y);", line: 3 },
    ]);
  });

  test("a file that already holds a violation can be changed elsewhere: only the new line counts", () => {
    expect(linesAdded("console.log(1);\nlet a = 1;\n", "console.log(1);\nlet a = 2;\n")).toEqual([
      { text: "let a = 2;", line: 2 },
    ]);
  });

  test("removing a violation adds nothing", () => {
    expect(linesAdded("a\nconsole.log(1);\nb\n", "a\nb\n")).toEqual([]);
  });

  test("lines count as a multiset: twice before and three times after adds one, the last", () => {
    expect(linesAdded("x\ny\nx\n", "x\nx\ny\nx\n")).toEqual([{ text: "x", line: 4 }]);
  });

  test("a new file adds every line, numbered from 1", () => {
    expect(linesAdded("", "a\n\nb")).toEqual([
      { text: "a", line: 1 },
      { text: "", line: 2 },
      { text: "b", line: 3 },
    ]);
  });

  test("line endings do not make lines new: \\r\\n is \\n, and a final newline adds no empty line", () => {
    expect(linesAdded("a\r\nb\r\n", "a\nb\n")).toEqual([]);
    expect(linesAdded("a\nb", "a\r\nb\r\n")).toEqual([]);
    expect(linesAdded("a", "a\nb")).toEqual([{ text: "b", line: 2 }]);
    expect(linesOf("")).toEqual([]);
    expect(linesOf("\n")).toEqual([""]);
  });

  test("property: each added line is the line of `after` at its number", () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const afterLines = linesOf(after);
        for (const added of linesAdded(before, after)) expect(afterLines[added.line! - 1]).toBe(added.text);
      }),
    );
  });

  test("property: a line is added exactly as many times as `after` holds it beyond `before`", () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const added = linesAdded(before, after).map((entry) => entry.text);
        const [was, is] = [linesOf(before), linesOf(after)];
        for (const candidate of new Set([...was, ...is]))
          expect(countOf(added, candidate)).toBe(Math.max(0, countOf(is, candidate) - countOf(was, candidate)));
      }),
    );
  });

  test("property: removing lines, or reordering them, never reports anything", () => {
    fc.assert(
      fc.property(lines, fc.array(fc.boolean(), { maxLength: 30 }), newline, (before, keep, eol) => {
        const kept = before.filter((_, index) => keep[index] ?? true);
        expect(linesAdded(textOf(before), textOf(kept, eol))).toEqual([]);
        expect(linesAdded(textOf(before), textOf([...before].reverse(), eol))).toEqual([]);
      }),
    );
  });

  test("property: appending a line reports exactly it, at the end", () => {
    fc.assert(
      fc.property(lines, line, newline, (before, appended, eol) => {
        expect(linesAdded(textOf(before, eol), textOf([...before, appended], eol))).toEqual([
          { text: appended, line: before.length + 1 },
        ]);
      }),
    );
  });

  test("a large file is compared in linear time", () => {
    const before = Array.from({ length: 200_000 }, (_, index) => `line ${index % 5_000}`).join("\n");
    const started = performance.now();
    expect(linesAdded(before, `${before}\nconsole.log(1)`)).toEqual([{ text: "console.log(1)", line: 200_001 }]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
