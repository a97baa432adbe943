/** `verify`'s reading of what counts as added: `git diff --unified=0` (which lines each file gains, numbered as in its new version), and a file read whole. */
import { describe, expect, test } from "vitest";
import { addedInDiff, unquoted } from "../../src/cli/git-diff.js";
import { linesAdded } from "../../src/enforce/added-lines.js";

const diff = (...lines: string[]) => `${lines.join("\n")}\n`;

describe("addedInDiff", () => {
  test("each `+` line with its number in the new file, hunk by hunk; removed lines count for nothing", () => {
    const text = diff(
      "diff --git a/src/app.ts b/src/app.ts",
      "index 1111111..2222222 100644",
      "--- a/src/app.ts",
      "+++ b/src/app.ts",
      "@@ -2 +2 @@ export function main() {",
      "-  return 1;",
      "+  console.log(1);",
      "@@ -10,0 +11,2 @@",
      "+const a = 1;",
      "+const b = 2;",
      "@@ -20,3 +22 @@",
      "-x",
      "-y",
      "-z",
      "+w",
    );
    expect(addedInDiff(text)).toEqual({
      files: [
        {
          path: "src/app.ts",
          added: [
            { text: "  console.log(1);", line: 2 },
            { text: "const a = 1;", line: 11 },
            { text: "const b = 2;", line: 12 },
            { text: "w", line: 22 },
          ],
        },
      ],
      binary: [],
      deleted: [],
    });
  });

  test("an added line that looks like a header is still an added line: the hunk's counts decide", () => {
    const text = diff(
      "diff --git a/notes.md b/notes.md",
      "--- a/notes.md",
      "+++ b/notes.md",
      "@@ -3,0 +4,3 @@",
      "++++ b/elsewhere.md",
      "+diff --git a/x b/x",
      "+@@ -1 +1 @@",
      "\\ No newline at end of file",
      "diff --git a/other.md b/other.md",
      "--- a/other.md",
      "+++ b/other.md",
      "@@ -1 +1 @@",
      "--- old",
      "++++ new",
    );
    expect(addedInDiff(text).files).toEqual([
      {
        path: "notes.md",
        added: [
          { text: "+++ b/elsewhere.md", line: 4 },
          { text: "diff --git a/x b/x", line: 5 },
          { text: "@@ -1 +1 @@", line: 6 },
        ],
      },
      { path: "other.md", added: [{ text: "+++ new", line: 1 }] },
    ]);
  });

  test("a new file is all added; a deleted file adds nothing; a renamed file is named by its new path", () => {
    const text = diff(
      "diff --git a/new.ts b/new.ts",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/new.ts",
      "@@ -0,0 +1,2 @@",
      "+one",
      "+two",
      "diff --git a/gone.ts b/gone.ts",
      "deleted file mode 100644",
      "--- a/gone.ts",
      "+++ /dev/null",
      "@@ -1,2 +0,0 @@",
      "-one",
      "-two",
      "diff --git a/r.txt b/r n.txt",
      "similarity index 94%",
      "rename from r.txt",
      "rename to r n.txt",
      "--- a/r.txt",
      "+++ b/r n.txt\t",
      "@@ -20,0 +21 @@",
      "+21",
    );
    expect(addedInDiff(text).files).toEqual([
      {
        path: "new.ts",
        added: [
          { text: "one", line: 1 },
          { text: "two", line: 2 },
        ],
      },
      { path: "r n.txt", added: [{ text: "21", line: 21 }] },
    ]);
    // Named apart: a path named on the command line that the change deletes is not a typo.
    expect(addedInDiff(text).deleted).toEqual(["gone.ts"]);
  });

  test("binary files are named apart, with no lines; a change of mode alone adds nothing", () => {
    const text = diff(
      "diff --git a/logo.png b/logo.png",
      "index bdc955b..8835708 100644",
      "Binary files a/logo.png and b/logo.png differ",
      "diff --git a/new bin.dat b/new bin.dat",
      "new file mode 100644",
      "Binary files /dev/null and b/new bin.dat differ",
      "diff --git a/run.sh b/run.sh",
      "old mode 100644",
      "new mode 100755",
    );
    expect(addedInDiff(text)).toEqual({ files: [], binary: ["logo.png", "new bin.dat"], deleted: [] });
  });

  test("a quoted name (a tab, a quote, UTF-8 bytes in octal) is read back; a CRLF line loses its CR", () => {
    const text = diff(
      'diff --git "a/tab\\there.txt" "b/tab\\there.txt"',
      '--- "a/tab\\there.txt"',
      '+++ "b/tab\\there.txt"',
      "@@ -1,0 +2 @@",
      "+z\r",
      'diff --git "a/caf\\303\\251 \\"q\\".bin" "b/caf\\303\\251 \\"q\\".bin"',
      "Binary files differ",
    );
    expect(addedInDiff(text)).toEqual({
      files: [{ path: "tab\there.txt", added: [{ text: "z", line: 2 }] }],
      binary: ['café "q".bin'],
      deleted: [],
    });
  });

  test("nothing changed: nothing added", () => {
    expect(addedInDiff("")).toEqual({ files: [], binary: [], deleted: [] });
  });
});

describe("unquoted", () => {
  test("a name git did not quote is taken as it stands", () => {
    expect(unquoted("src/a b.ts")).toBe("src/a b.ts");
    expect(unquoted('"')).toBe('"');
  });

  test("C escapes and octal bytes", () => {
    expect(unquoted('"a\\\\b\\nc\\"d\\344\\270\\255"')).toBe('a\\b\nc"d中');
  });
});

describe("a file read whole: every line added, as linesAdded from an empty text gives them", () => {
  test("numbered from 1; CRLF or LF; the final newline starts no line; a last line without one counts", () => {
    expect(linesAdded("", "a\r\nb\n")).toEqual([
      { text: "a", line: 1 },
      { text: "b", line: 2 },
    ]);
    expect(linesAdded("", "a\n\nc")).toEqual([
      { text: "a", line: 1 },
      { text: "", line: 2 },
      { text: "c", line: 3 },
    ]);
    expect(linesAdded("", "")).toEqual([]);
  });
});
