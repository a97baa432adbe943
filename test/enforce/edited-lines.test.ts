/**
 * A patch's update judged by the file it makes, with the file split into
 * lines once (src/enforce/applied-edits.ts `editedLines`, used by
 * src/enforce/checked-changes.ts): the lines before and after are those
 * `linesOf` reads from the file and from `appliedEdits`' result, whatever the
 * line endings, a missing final line break, hunks not found or the work bound.
 */
import fc from "fast-check";
import { afterEach, describe, expect, test, vi } from "vitest";
import { linesOf } from "../../src/enforce/added-lines.js";
import { appliedEdits, editedLines } from "../../src/enforce/applied-edits.js";
import { checkedChange } from "../../src/enforce/checked-changes.js";
import type { PlacedFileChange, Replacement } from "../../src/enforce/proposed.js";

const hunk = (oldLines: string[], newLines: string[]): Replacement => ({
  oldText: oldLines.map((line) => `${line}\n`).join(""),
  newText: newLines.map((line) => `${line}\n`).join(""),
  hunk: true,
});

/** A patch's update of src/a.ts, as the session places it. */
const patchOf = (...hunks: Replacement[]): PlacedFileChange => ({
  kind: "edit",
  written: "src/a.ts",
  file: { path: "src/a.ts", absolute: "/p/src/a.ts" },
  replacements: hunks,
  added: [],
});

/** The lines the check reads as added by `change` to a file holding `text`. */
function addedBy(change: PlacedFileChange, text: string) {
  const checked = checkedChange(change, { text }).checked;
  return checked?.kind === "file" ? checked.added : undefined;
}

afterEach(() => vi.restoreAllMocks());

describe("a patch's update on the file's lines", () => {
  test("on a CRLF file without a final line break: only the line the hunk brings is added, numbered in the file after", () => {
    const text = "a\r\nconsole.info(1)\r\nb";
    // The file after ends with a line break, as the patch tools write it: that adds no line.
    expect(addedBy(patchOf(hunk(["console.info(1)"], ["console.log(1)"])), text)).toEqual([
      { text: "console.log(1)", line: 2 },
    ]);
  });

  test("a hunk not found is judged alone, after the lines the others add", () => {
    const text = "one\ntwo\n";
    expect(addedBy(patchOf(hunk(["one"], ["ONE"]), hunk(["nowhere"], ["console.log(2)"])), text)).toEqual([
      { text: "ONE", line: 1 },
      { text: "console.log(2)" },
    ]);
  });

  test("the file's text is split into lines once", () => {
    const text = "a\nconsole.info(1)\nb\n";
    const split = vi.spyOn(String.prototype, "split");
    addedBy(patchOf(hunk(["console.info(1)"], ["console.log(1)"])), text);
    expect(split.mock.contexts.filter((split) => String(split) === text)).toHaveLength(1);
  });

  test("property: the same lines and the same replacements left as the file's text read before and after appliedEdits", () => {
    const piece = fc.constantFrom("a", "b", " a", "a ", "\r", "\n", "\r\n", "console.log(1)");
    const text = fc.array(piece, { maxLength: 14 }).map((parts) => parts.join(""));
    const lines = fc.array(fc.constantFrom("", "a", "b", " a", "a\r", "console.log(1)"), { maxLength: 4 });
    const hunks = fc.array(fc.tuple(lines, lines), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(text, hunks, fc.integer({ min: 0, max: 200 }), (file, pairs, maxWork) => {
        const replacements = pairs.map(([oldLines, newLines]) => hunk(oldLines, newLines));
        const applied = appliedEdits(file, replacements, maxWork);
        expect(editedLines(file, replacements, maxWork)).toEqual({
          before: linesOf(file),
          after: linesOf(applied.text),
          unapplied: applied.unapplied,
        });
      }),
      { numRuns: 2000 },
    );
  });
});
