import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { patchedFiles, pathsFromPatch } from "../../src/hosts/opencode/patch-text.js";

const envelope = (...body: string[]) => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
const texts = (patch: string) => patchedFiles(patch).map(({ path, added }) => [path, added.map((line) => line.text)]);
/** Each file with the lines it adds judged alone, as the check takes them when the file cannot be read. */
const judgedAlone = (patch: string) => patchedFiles(patch).map(({ path, added }) => ({ path, added }));

describe("the lines a patch adds, file by file", () => {
  test("an Add File adds every line, numbered; an Update File its + lines from the first @@ on", () => {
    const patch = envelope(
      "*** Add File: a.ts",
      "+one",
      "+",
      "+console.log(1)",
      "*** Update File: b.ts",
      "+ignored: before any @@",
      "@@",
      " ctx",
      "+added",
      "*** End of File",
    );
    expect(judgedAlone(patch)).toEqual([
      {
        path: "a.ts",
        added: [
          { text: "one", line: 1 },
          { text: "", line: 2 },
          { text: "console.log(1)", line: 3 },
        ],
      },
      { path: "b.ts", added: [{ text: "added" }] },
    ]);
  });

  test("a + line that puts back a - line of the same file adds nothing; a re-indented one does", () => {
    const patch = envelope("*** Update File: a.ts", "@@", "-console.log(a)", "+console.log(a)", "-  f()", "+    f()");
    expect(texts(patch)).toEqual([["a.ts", ["    f()"]]]);
  });

  test("OpenCode's own leniencies: a heredoc wrapper, \\r\\n line ends, indented headers", () => {
    const patch = `cat <<'EOF'\n${envelope("  *** Add File: a.ts", "+x")}\nEOF`;
    expect(texts(patch)).toEqual([["a.ts", ["x"]]]);
    expect(texts(envelope("*** Add File: a.ts", "+x").replaceAll("\n", "\r\n"))).toEqual([["a.ts", ["x"]]]);
  });

  test("a deleted file adds nothing, in either dialect; the envelope's is left with no text (a rule file deleted is a rule switched off)", () => {
    expect(texts(envelope("*** Delete File: a.ts"))).toEqual([["a.ts", []]]);
    expect(patchedFiles(envelope("*** Delete File: a.ts"))[0]?.replacements).toEqual([{ oldText: "", newText: "" }]);
    expect(texts(["--- a/a.ts", "+++ /dev/null", "@@ -1,2 +0,0 @@", "-console.log(1)", "-x"].join("\n"))).toEqual([]);
  });

  test("a unified diff's counted hunk takes `--- ` and `+++ ` lines as content", () => {
    const patch = [
      "--- a/notes.md",
      "+++ b/notes.md",
      "@@ -1,2 +1,3 @@",
      "--- old rule",
      "+++ new rule",
      "+-- dashes",
      " end",
    ].join("\n");
    expect(judgedAlone(patch)).toEqual([
      {
        path: "notes.md",
        added: [
          { text: "++ new rule", line: 1 },
          { text: "-- dashes", line: 2 },
        ],
      },
    ]);
  });

  test("a git diff of several files: each file its lines, a new file from line 1, timestamps and markers left out", () => {
    const patch = [
      "diff --git a/a.ts b/a.ts",
      "index 1..2 100644",
      "--- a/a.ts\t2024-01-01 10:00:00",
      "+++ b/a.ts\t2024-01-02 10:00:00",
      "@@ -3 +3 @@ function f() {",
      "-x",
      "+y",
      "\\ No newline at end of file",
      "diff --git a/new.ts b/new.ts",
      "--- /dev/null",
      "+++ b/new.ts",
      "@@ -0,0 +1,2 @@",
      "+first",
      "+console.log(2)",
    ].join("\n");
    expect(judgedAlone(patch)).toEqual([
      { path: "a.ts", added: [{ text: "y", line: 3 }] },
      {
        path: "new.ts",
        added: [
          { text: "first", line: 1 },
          { text: "console.log(2)", line: 2 },
        ],
      },
    ]);
  });

  test("a bare @@ hunk runs to the next file header, without line numbers", () => {
    const patch = ["--- a/a.ts", "+++ b/a.ts", "@@", "+x", " y", "--- a/b.ts", "+++ b/b.ts", "@@", "-z", "+w"].join(
      "\n",
    );
    expect(judgedAlone(patch)).toEqual([
      { path: "a.ts", added: [{ text: "x" }] },
      { path: "b.ts", added: [{ text: "w" }] },
    ]);
  });

  test("hunks before any file header belong to no file", () => {
    expect(patchedFiles("@@ -1 +1 @@\n-a\n+b\n")).toEqual([]);
  });
});

describe("the edit a patch makes, to apply to the file's text", () => {
  const edits = (patch: string) =>
    patchedFiles(patch).map(({ path, readFrom, replacements }) => ({ path, readFrom, replacements }));

  test("an Update File: a hunk per @@ chunk, its context and - lines to its context and + lines; lines before the first @@, or neither context, - nor +, are skipped", () => {
    const patch = envelope(
      "*** Update File: a.ts",
      " before",
      "@@ function f() {",
      " ctx",
      "-console.info(1)",
      "+console.log(1)",
      "",
      "@@",
      "+tail",
      "*** End of File",
    );
    expect(edits(patch)).toEqual([
      {
        path: "a.ts",
        replacements: [
          { oldText: "ctx\nconsole.info(1)\n", newText: "ctx\nconsole.log(1)\n", hunk: true },
          { oldText: "", newText: "tail\n", hunk: true },
        ],
      },
    ]);
  });

  test("an Add File replaces the whole text; a Move to writes the destination from the file it moves", () => {
    const patch = envelope(
      "*** Add File: new.ts",
      "+a",
      "+b",
      "*** Update File: src/a.ts",
      "*** Move to: src/b.ts",
      "@@",
      "-x",
      "+y",
    );
    expect(edits(patch)).toEqual([
      { path: "new.ts", replacements: [{ oldText: "", newText: "a\nb\n" }] },
      // The file moved away is left with no text.
      { path: "src/a.ts", replacements: [{ oldText: "", newText: "" }] },
      { path: "src/b.ts", readFrom: "src/a.ts", replacements: [{ oldText: "x\n", newText: "y\n", hunk: true }] },
    ]);
  });

  test("a unified diff: a hunk per @@ header, an empty line in a counted hunk an empty context line", () => {
    const patch = [
      "--- a/a.ts",
      "+++ b/a.ts",
      "@@ -1,3 +1,3 @@",
      " a",
      "",
      "-b",
      "+c",
      "@@ -9 +9,2 @@",
      " z",
      "+w",
      "\\ No newline at end of file",
    ].join("\n");
    expect(edits(patch)).toEqual([
      {
        path: "a.ts",
        replacements: [
          { oldText: "a\n\nb\n", newText: "a\n\nc\n", hunk: true },
          { oldText: "z\n", newText: "z\nw\n", hunk: true },
        ],
      },
    ]);
  });
});

/** A file section of an envelope patch: its kind of lines in order. */
const diffLine = fc.tuple(fc.constantFrom(" ", "-", "+"), fc.constantFrom("a", "b", "console.log(x)", "  c"));
const counted = (of: readonly string[]) =>
  of.reduce((counts, item) => counts.set(item, (counts.get(item) ?? 0) + 1), new Map<string, number>());

describe("properties of patch parsing", () => {
  test("an update adds its + lines less its - lines (a multiset); context and - lines never count", () => {
    fc.assert(
      fc.property(fc.array(fc.array(diffLine, { maxLength: 12 }), { minLength: 1, maxLength: 4 }), (sections) => {
        const body = sections.flatMap((lines, index) => [
          `*** Update File: f${index}.ts`,
          "@@",
          ...lines.map(([sign, text]) => sign + text),
        ]);
        const files = patchedFiles(envelope(...body));
        expect(files.map((file) => file.path)).toEqual(sections.map((_, index) => `f${index}.ts`));
        files.forEach((file, index) => {
          const lines = sections[index]!;
          const plus = counted(lines.filter(([sign]) => sign === "+").map(([, text]) => text));
          const minus = counted(lines.filter(([sign]) => sign === "-").map(([, text]) => text));
          const added = counted(file.added.map((line) => line.text));
          for (const text of new Set([...plus.keys(), ...minus.keys(), ...added.keys()]))
            expect(added.get(text) ?? 0).toBe(Math.max(0, (plus.get(text) ?? 0) - (minus.get(text) ?? 0)));
        });
      }),
    );
  });

  test("a unified hunk's line numbers name the added line in the file after the patch", () => {
    fc.assert(
      fc.property(fc.array(diffLine, { maxLength: 20 }), fc.integer({ min: 1, max: 500 }), (lines, start) => {
        const oldCount = lines.filter(([sign]) => sign !== "+").length;
        const after = lines.filter(([sign]) => sign !== "-").map(([, text]) => text);
        const patch = [
          "--- a/f.ts",
          "+++ b/f.ts",
          `@@ -${start},${oldCount} +${start},${after.length} @@`,
          ...lines.map(([sign, text]) => sign + text),
        ].join("\n");
        for (const added of patchedFiles(patch)[0]?.added ?? []) expect(after[added.line! - start]).toBe(added.text);
      }),
    );
  });

  test("pathsFromPatch names the files it named before patch parsing moved beside it", () => {
    const before = (patch: string) =>
      [
        ...patch.matchAll(
          /^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$|^(?:\+\+\+|---) (?:[ab]\/)?(.+)$/gm,
        ),
      ]
        .map((match) => (match[1] ?? match[2] ?? match[3] ?? "").trim())
        .filter((path) => path && path !== "/dev/null");
    const token = fc.constantFrom(
      "*** Add File: ",
      "*** Update File:",
      "*** Delete File: ",
      "*** Move to: ",
      "--- ",
      "+++ ",
      "a/",
      "b/",
      "x.ts",
      " ",
      "/dev/null",
      "\n",
      "\r\n",
      "\r",
      "\u2028",
      "+",
      "-",
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 30 }), (tokens) => {
        const patch = tokens.join("");
        expect(pathsFromPatch(patch)).toEqual(before(patch));
      }),
    );
  });
});
