/** What a change adds (src/enforce/added-lines.ts): only lines the text before did not hold count. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { linesAdded, splitLines } from "../../src/enforce/added-lines.js";

describe("linesAdded", () => {
  test("a new file adds every line, numbered", () => {
    expect(linesAdded("", "a\nb\n")).toEqual([
      { text: "a", line: 1 },
      { text: "b", line: 2 },
    ]);
  });

  test("a line already in the file adds nothing, wherever it moves", () => {
    expect(linesAdded('x\nconsole.log("kept")\ny\n', 'console.log("kept")\nx\nz\ny\n')).toEqual([{ text: "z", line: 3 }]);
  });

  test("as a multiset: a line there twice before and three times after adds one", () => {
    expect(linesAdded("a\na\n", "a\na\na\n")).toEqual([{ text: "a", line: 3 }]);
  });

  test("a changed line counts as added; CRLF reads as LF", () => {
    expect(linesAdded("console.log(1)\r\n", "console.log(2)\n")).toEqual([{ text: "console.log(2)", line: 1 }]);
  });

  /** A file's text: each line ends with a newline. */
  const file = (lines: readonly string[]) => lines.map((line) => `${line}\n`).join("");
  const lines = fc.array(fc.constantFrom("a", "b", "console.log(x)", "", "  return 1;"), { maxLength: 20 });

  test("every added line is a line of the text after; removing lines never adds any", () => {
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const afterText = file(after);
        for (const added of linesAdded(file(before), afterText)) expect(splitLines(afterText)[(added.line as number) - 1]).toBe(added.text);
        const kept = before.filter((_, i) => i % 2 === 0);
        expect(linesAdded(file(before), file(kept))).toEqual([]);
      }),
    );
  });

  test("appending one line to any text adds exactly that line", () => {
    fc.assert(
      fc.property(lines, fc.constantFrom("NEW-1", "NEW-2"), (before, line) => {
        expect(linesAdded(file(before), file([...before, line])).map(({ text }) => text)).toEqual([line]);
      }),
    );
  });
});
