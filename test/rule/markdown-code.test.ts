/** Where Markdown holds code: fenced blocks and inline code spans, line by line. */
import { describe, expect, test } from "vitest";
import { codeMask, codeSpans, proseRanges } from "../../src/rule/markdown-code.js";

/** The code spans of a line, as the text they cover. */
const spansOf = (line: string) => codeSpans(line).map(([start, end]) => line.slice(start, end));
/** Which lines of a text are fenced code. */
const fenced = (text: string) => codeMask(text.split("\n")).map((line) => line.fenced);

describe("codeSpans", () => {
  test("a run of N backticks closes only with a run of exactly N", () => {
    expect(spansOf("a `x` b ``y ` z`` c")).toEqual(["`x`", "``y ` z``"]);
    expect(spansOf("``a`b``` c")).toEqual([]);
    expect(spansOf("``a`b``` c``")).toEqual(["``a`b``` c``"]);
    expect(spansOf("```a`` b```")).toEqual(["```a`` b```"]);
  });

  test("a run with no closer is text, and a later pair still makes a span", () => {
    expect(spansOf("`` alone `x`")).toEqual(["`x`"]);
    expect(spansOf("no closer `here")).toEqual([]);
    expect(spansOf("plain")).toEqual([]);
  });

  test("a backslash escapes a backtick outside code, not inside it", () => {
    expect(spansOf("\\`not code`")).toEqual([]);
    expect(spansOf("\\\\`code`")).toEqual(["`code`"]);
    expect(spansOf("\\``x`")).toEqual(["`x`"]);
    expect(spansOf("`a\\`")).toEqual(["`a\\`"]);
  });

  test("spans do not cross lines", () => {
    const mask = codeMask(["a `b", "c` d"]);
    expect(mask).toEqual([
      { fenced: false, spans: [] },
      { fenced: false, spans: [] },
    ]);
  });

  test("linear on many unmatched runs of growing length", () => {
    let line = "";
    for (let n = 1; n <= 2000; n++) line += `${"`".repeat(n)} `;
    const started = performance.now();
    expect(codeSpans(line)).toEqual([]);
    expect(codeSpans("` ".repeat(500_000)).length).toBe(250_000);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("codeMask: fences", () => {
  test("backtick and tilde fences, the info string, indentation", () => {
    expect(fenced("a\n```python\n@x\n```\nb\n  ~~~\n  y\n  ~~~\nc")).toEqual([
      false,
      true,
      true,
      true,
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  test("a fence closes only with the same character, at least as long, alone on its line", () => {
    expect(fenced("````\n```\n~~~~\n```` x\n`````  \nafter")).toEqual([true, true, true, true, true, false]);
    expect(fenced("~~~\n```\n~~~\nafter")).toEqual([true, true, true, false]);
  });

  test("a backtick fence's info string holds no backtick: such a line is text with a span", () => {
    const mask = codeMask(["```js `x`", "after"]);
    expect(mask.map((line) => line.fenced)).toEqual([false, false]);
    expect(mask[0]?.spans).toEqual([[6, 9]]);
    expect(fenced("~~~ a`b\ninside\n~~~")).toEqual([true, true, true]);
  });

  test("two backticks or tildes are not a fence; an unclosed fence runs to the end", () => {
    expect(fenced("``\n~~\nx")).toEqual([false, false, false]);
    expect(fenced("a\n```\nb\n``\nc")).toEqual([false, true, true, true, true]);
  });

  test("inline spans are read only outside fences", () => {
    const mask = codeMask(["`a`", "```", "`b`", "```", "`c`"]);
    expect(mask.map((line) => line.spans)).toEqual([[[0, 3]], [], [], [], [[0, 3]]]);
  });
});

describe("proseRanges", () => {
  test("the gaps between code spans; none for a fenced line", () => {
    const line = "a `b` c ``d``";
    const [mask] = codeMask([line]);
    expect(proseRanges(line, mask!).map(([start, end]) => line.slice(start, end))).toEqual(["a ", " c "]);
    expect(proseRanges("`x`", codeMask(["`x`"])[0]!)).toEqual([]);
    expect(proseRanges("plain", codeMask(["plain"])[0]!)).toEqual([[0, 5]]);
    expect(proseRanges("@x", codeMask(["```", "@x"])[1]!)).toEqual([]);
  });
});
