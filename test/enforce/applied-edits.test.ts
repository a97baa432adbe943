/**
 * Edits applied to a file's text in memory (src/enforce/applied-edits.ts),
 * as OpenCode applies them: an edit's old text found once (or every time),
 * then as trimmed lines; a patch's hunks as lines, sought onward; what
 * cannot be applied returned, and the work bounded.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { appliedEdits, MAX_APPLY_WORK } from "../../src/enforce/applied-edits.js";
import type { Replacement } from "../../src/enforce/proposed.js";

const edit = (oldText: string, newText: string, all = false): Replacement =>
  all ? { oldText, newText, all } : { oldText, newText };
const hunk = (oldLines: string[], newLines: string[]): Replacement => ({
  oldText: oldLines.map((line) => `${line}\n`).join(""),
  newText: newLines.map((line) => `${line}\n`).join(""),
  hunk: true,
});

describe("an edit's replacements", () => {
  test("the old text, found once, is replaced where it stands, also inside a line", () => {
    expect(appliedEdits('a\nconsole.info("x")\nb\n', [edit("info", "log")])).toEqual({
      text: 'a\nconsole.log("x")\nb\n',
      unapplied: [],
    });
  });

  test("in order: each replacement sees the text the ones before it made", () => {
    const result = appliedEdits("let a = 1;\n", [
      edit("a = 1", "b = 1"),
      edit("let b", "const b"),
      edit("const b = 1;", "const b = 2;"),
    ]);
    expect(result).toEqual({ text: "const b = 2;\n", unapplied: [] });
  });

  test("replaceAll replaces every occurrence; without it, an old text found twice is ambiguous and not applied", () => {
    expect(appliedEdits("x.info(1)\nx.info(2)\n", [edit("info", "log", true)]).text).toBe("x.log(1)\nx.log(2)\n");
    const twice = edit("info", "log");
    expect(appliedEdits("x.info(1)\nx.info(2)\n", [twice])).toEqual({
      text: "x.info(1)\nx.info(2)\n",
      unapplied: [twice],
    });
  });

  test("an old text not found is returned unapplied, and the replacements after it still apply", () => {
    const missing = edit("nowhere", "console.log(1)");
    expect(appliedEdits("a\nb\n", [missing, edit("b", "c")])).toEqual({ text: "a\nc\n", unapplied: [missing] });
  });

  test("the new text is taken as it is: `$&` and `$1` are not replacement patterns", () => {
    expect(appliedEdits("a b a\n", [edit("a", "$&$1", true)]).text).toBe("$&$1 b $&$1\n");
    expect(appliedEdits("a b\n", [edit("b", "$'")]).text).toBe("a $'\n");
  });

  test("OpenCode's first fallback: whole lines equal to the old text's lines once trimmed, replaced from the first line's start", () => {
    const text = "function f() {\n    if (x) {\n        console.info(x);\n    }\n}\n";
    const result = appliedEdits(text, [
      edit("if (x) {\n  console.info(x);\n}", "  if (x) {\n    console.log(x);\n  }"),
    ]);
    expect(result).toEqual({ text: "function f() {\n  if (x) {\n    console.log(x);\n  }\n}\n", unapplied: [] });
  });

  test("blank lines matched by the fallback stand for no text, so they replace nothing", () => {
    const blank = edit("  \n", "console.log(1)\n", true);
    expect(appliedEdits("a\n\nb\n", [blank])).toEqual({ text: "a\n\nb\n", unapplied: [blank] });
  });

  test("the old and new text take the file's line ending", () => {
    expect(appliedEdits("a\r\nb\r\nc\r\n", [edit("a\nb", "a\nx\ny")]).text).toBe("a\r\nx\r\ny\r\nc\r\n");
    expect(appliedEdits("a\nb\n", [edit("a\r\nb", "c")]).text).toBe("c\n");
  });

  test("an empty old text writes the new text as the whole file, as OpenCode 1.x does", () => {
    expect(appliedEdits("old\n", [edit("", "new\n"), edit("new", "newer")]).text).toBe("newer\n");
  });
});

describe("a patch's hunks", () => {
  test("whole lines, sought onward from the previous hunk: a run repeated later is taken after the first hunk", () => {
    const text = "f\n  ret\ng\n  ret\n";
    const result = appliedEdits(text, [
      hunk(["f"], ["f", "// f"]),
      hunk(["  ret"], ["  return"]),
      hunk(["  ret"], ["  return 2"]),
    ]);
    expect(result).toEqual({ text: "f\n// f\n  return\ng\n  return 2\n", unapplied: [] });
  });

  test("a hunk never matches inside a line, and one not found is returned unapplied", () => {
    const partial = hunk(["info"], ["log"]);
    expect(appliedEdits('console.info("x")\n', [partial])).toEqual({
      text: 'console.info("x")\n',
      unapplied: [partial],
    });
  });

  test("lines are sought exactly, then with line ends trimmed, then trimmed; a CRLF file matches with its line ends trimmed", () => {
    expect(appliedEdits("  a  \nb\n", [hunk(["a"], ["c"])]).text).toBe("c\nb\n");
    expect(appliedEdits("a\r\nb\r\n", [hunk(["a"], ["c"])]).text).toBe("c\nb\r\n");
  });

  test("no old lines: the new lines go at the end; a final empty line both sides have is dropped when it is not found", () => {
    expect(appliedEdits("a\n", [hunk([], ["z"])]).text).toBe("a\nz\n");
    expect(appliedEdits("a\nb", [hunk(["b", ""], ["c", ""])]).text).toBe("a\nc\n");
  });
});

describe("bounds", () => {
  test("a replacement past the work bound is not applied, and says so", () => {
    const text = "x".repeat(1_000);
    const first = edit("x", "y", true);
    const second = edit("y", "z", true);
    // The first costs its three scans (3,002) and the text it builds (3,000); the second's scans would pass 8,000.
    expect(appliedEdits(text, [first, second], 8_000)).toEqual({ text: "y".repeat(1_000), unapplied: [second] });
  });

  test("an edit that would blow the text up is not applied", () => {
    const big = edit("a", "b".repeat(1_000), true);
    expect(appliedEdits("a".repeat(100_000), [big]).unapplied).toEqual([big]);
  });

  test("an 8 MiB file edited hundreds of times, and hostile line runs, take bounded time", () => {
    const line = "const value = compute(input);";
    const text = Array.from(
      { length: (8 * 1024 * 1024) / (line.length + 1) },
      (_, index) => `${line} // ${index}`,
    ).join("\n");
    const replacements = Array.from({ length: 300 }, (_, index) =>
      edit(`// ${index * 7}\n`, `// ${index * 7} edited\n`),
    );
    let started = performance.now();
    const result = appliedEdits(text, replacements);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.unapplied.length).toBeGreaterThan(0); // the bound stopped it before the end
    // Every line trimmed-equal to the first of a long run that fails only at its end: the line fallback's worst case.
    const same = `${"a\n".repeat(200_000)}`;
    const run = `${"a\n".repeat(2_000)}b`;
    started = performance.now();
    expect(appliedEdits(same, [edit(run, "c"), hunk(run.split("\n"), ["c"])]).unapplied).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test("a file of ordinary size takes hundreds of edits within the bound", () => {
    const text = Array.from({ length: 3_000 }, (_, index) => `const line${index} = ${index};`).join("\n");
    expect(text.length * 3 * 200).toBeLessThan(MAX_APPLY_WORK);
    const replacements = Array.from({ length: 200 }, (_, index) => edit(`line${index} = `, `renamed${index} = `));
    expect(appliedEdits(text, replacements).unapplied).toEqual([]);
  });
});

/** Lines from a few tokens that never spell `info` or `log` by chance, so an edit of either is found once. */
const plainLine = fc
  .array(fc.constantFrom("a", "b", " ", "x", "=", ";", "1", "(", ")"), { maxLength: 8 })
  .map((parts) => parts.join(""));

describe("properties", () => {
  test("a unique old text is replaced once and only there: the text before it, the new text, the text after it", () => {
    fc.assert(
      fc.property(
        fc.array(plainLine, { maxLength: 10 }),
        fc.array(plainLine, { maxLength: 10 }),
        plainLine,
        (above, below, line) => {
          const text = [...above, `${line}console.info(1)`, ...below].join("\n");
          expect(appliedEdits(text, [edit("info", "log")]).text).toBe(
            [...above, `${line}console.log(1)`, ...below].join("\n"),
          );
        },
      ),
    );
  });

  test("whatever the replacements, the result is a string, and every one is either applied or returned", () => {
    const piece = fc.constantFrom("", "a", "b", "\n", "\r\n", " ", "a\n", "$&");
    const texts = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(""));
    const replacement = fc.record({ oldText: texts, newText: texts, all: fc.boolean(), hunk: fc.boolean() });
    fc.assert(
      fc.property(texts, fc.array(replacement, { maxLength: 6 }), (text, replacements) => {
        const result = appliedEdits(text, replacements);
        expect(typeof result.text).toBe("string");
        for (const unapplied of result.unapplied) expect(replacements).toContain(unapplied);
      }),
    );
  });
});
