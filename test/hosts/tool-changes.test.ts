import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { ProposedChange } from "../../src/enforce/proposed.js";
import { MAX_FILES_PER_PATCH } from "../../src/hosts/opencode/patch-section.js";
import { proposedChanges } from "../../src/hosts/opencode/tool-changes.js";
import { MAX_PATHS_PER_CALL } from "../../src/hosts/opencode/tool-paths.js";

const envelope = (...body: string[]) => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
/** The texts a call adds, file by file. */
const addedTexts = (changes: readonly ProposedChange[]) =>
  changes.map((change) =>
    change.kind === "edit" ? [change.path, change.added.map((line) => line.text)] : [change.kind],
  );

describe("what a call of OpenCode's tools proposes", () => {
  test("write: the whole file, named filePath (1.x) or path (2.x)", () => {
    expect(proposedChanges("write", { filePath: "/p/a.ts", content: "console.log(1)\n" })).toEqual([
      { kind: "write", path: "/p/a.ts", content: "console.log(1)\n" },
    ]);
    expect(proposedChanges("write", { path: "src/a.ts", content: "" })).toEqual([
      { kind: "write", path: "src/a.ts", content: "" },
    ]);
  });

  test("edit: the replacement, for the engine to apply to the file; judged alone, the lines of newString that oldString lacks, without line numbers", () => {
    // 1.x: filePath, oldString, newString, replaceAll.
    expect(
      proposedChanges("edit", {
        filePath: "/p/a.ts",
        oldString: "let a = 1;",
        newString: "let a = 1;\nconsole.log(a);",
      }),
    ).toEqual([
      {
        kind: "edit",
        path: "/p/a.ts",
        replacements: [{ oldText: "let a = 1;", newText: "let a = 1;\nconsole.log(a);" }],
        added: [{ text: "console.log(a);" }],
      },
    ]);
    // 2.x: path, oldString, newString, replaceAll.
    expect(
      proposedChanges("edit", { path: "src/a.ts", oldString: "x", newString: "console.log(x)", replaceAll: true }),
    ).toEqual([
      {
        kind: "edit",
        path: "src/a.ts",
        replacements: [{ oldText: "x", newText: "console.log(x)", all: true }],
        added: [{ text: "console.log(x)" }],
      },
    ]);
    // Only `true` replaces every occurrence.
    expect(proposedChanges("edit", { path: "a.ts", oldString: "info", newString: "log", replaceAll: "yes" })).toEqual([
      { kind: "edit", path: "a.ts", replacements: [{ oldText: "info", newText: "log" }], added: [{ text: "log" }] },
    ]);
  });

  test("edit: a violating line the edit keeps adds nothing, and removing a violation adds nothing", () => {
    const kept = proposedChanges("edit", {
      filePath: "a.ts",
      oldString: "console.log(a);\nlet b = 1;",
      newString: "console.log(a);\nlet b = 2;",
    });
    expect(addedTexts(kept)).toEqual([["a.ts", ["let b = 2;"]]]);
    expect(
      addedTexts(proposedChanges("edit", { filePath: "a.ts", oldString: "f();\nconsole.log(a);", newString: "f();" })),
    ).toEqual([["a.ts", []]]);
  });

  test("edit with an empty oldString creates or overwrites the file with newString (1.x): a write, compared with the file on disk", () => {
    expect(proposedChanges("edit", { filePath: "new.ts", oldString: "", newString: "a\nconsole.log(1)\n" })).toEqual([
      { kind: "write", path: "new.ts", content: "a\nconsole.log(1)\n" },
    ]);
  });

  test("multiedit: one edit per file, its entries' replacements in order, on the top-level file (the host applies every entry there)", () => {
    const edits = [
      { filePath: "/p/other.ts", oldString: "a", newString: "a\nconsole.log(a)" },
      { oldString: "b", newString: "c", replaceAll: true },
      { oldString: "", newString: "whole" },
    ];
    expect(proposedChanges("multiedit", { filePath: "/p/a.ts", edits })).toEqual([
      {
        kind: "edit",
        path: "/p/a.ts",
        replacements: [
          { oldText: "a", newText: "a\nconsole.log(a)" },
          { oldText: "b", newText: "c", all: true },
          { oldText: "", newText: "whole" },
        ],
        added: [{ text: "console.log(a)" }, { text: "c" }, { text: "whole" }],
      },
    ]);
    // Without a top-level file, each entry's own, grouped by file in the order they come.
    expect(
      addedTexts(
        proposedChanges("multiedit", {
          edits: [
            ...edits,
            { path: "/p/b.ts", oldString: "x", newString: "y" },
            { filePath: "/p/other.ts", oldString: "d", newString: "e" },
          ],
        }),
      ),
    ).toEqual([
      ["/p/other.ts", ["console.log(a)", "e"]],
      ["/p/b.ts", ["y"]],
    ]);
  });

  test("apply_patch (1.x) and patch (2.x): per file, the text to apply, and judged alone, the + lines; - and context lines never count", () => {
    const patchText = envelope(
      "*** Add File: src/new.ts",
      "+export const a = 1;",
      "+console.log(a);",
      "*** Update File: src/old.ts",
      "@@ function f() {",
      " console.log(kept);",
      "-console.log(removed);",
      "+return 1;",
      "*** Delete File: src/gone.ts",
    );
    const expected = [
      {
        kind: "edit",
        path: "src/new.ts",
        replacements: [{ oldText: "", newText: "export const a = 1;\nconsole.log(a);\n" }],
        added: [
          { text: "export const a = 1;", line: 1 },
          { text: "console.log(a);", line: 2 },
        ],
      },
      {
        kind: "edit",
        path: "src/old.ts",
        replacements: [
          {
            oldText: "console.log(kept);\nconsole.log(removed);\n",
            newText: "console.log(kept);\nreturn 1;\n",
            hunk: true,
          },
        ],
        added: [{ text: "return 1;" }],
      },
      // Deleted: left with no text, adding nothing.
      { kind: "edit", path: "src/gone.ts", replacements: [{ oldText: "", newText: "" }], added: [] },
    ];
    expect(proposedChanges("apply_patch", { patchText })).toEqual(expected);
    expect(proposedChanges("patch", { patchText })).toEqual(expected);
    // Later 2.x offers `patch` to GPT models as a freeform `apply_patch`: the patch may come as the arguments themselves.
    expect(proposedChanges("patch", patchText)).toEqual(expected);
  });

  test("a patch that moves a file adds its lines to the destination, read from the file it moves", () => {
    const patchText = envelope("*** Update File: src/a.ts", "*** Move to: src/b.ts", "@@", "-old", "+console.log(1)");
    expect(addedTexts(proposedChanges("apply_patch", { patchText }))).toEqual([
      ["src/a.ts", []],
      ["src/b.ts", ["console.log(1)"]],
    ]);
    expect(proposedChanges("apply_patch", { patchText })).toMatchObject([
      { path: "src/a.ts", replacements: [{ oldText: "", newText: "" }] },
      { path: "src/b.ts", readFrom: "src/a.ts" },
    ]);
  });

  test("a unified diff gives its + lines with their line numbers", () => {
    const patchText = [
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -10,2 +10,3 @@",
      " const a = 1;",
      "-f(a);",
      "+g(a);",
      "+console.log(a);",
    ].join("\n");
    expect(proposedChanges("apply_patch", { patchText })).toEqual([
      {
        kind: "edit",
        path: "src/a.ts",
        replacements: [
          { oldText: "const a = 1;\nf(a);\n", newText: "const a = 1;\ng(a);\nconsole.log(a);\n", hunk: true },
        ],
        added: [
          { text: "g(a);", line: 11 },
          { text: "console.log(a);", line: 12 },
        ],
      },
    ]);
  });

  test("bash (1.x, earlier 2.x) and shell (later 2.x): the command", () => {
    expect(proposedChanges("bash", { command: "rm -rf dist", timeout: 1000, workdir: "/p" })).toEqual([
      { kind: "command", command: "rm -rf dist" },
    ]);
    expect(proposedChanges("shell", { command: "npm publish", background: true })).toEqual([
      { kind: "command", command: "npm publish" },
    ]);
  });

  test("a tool the plugin does not know proposes nothing, whatever its arguments look like", () => {
    expect(proposedChanges("my_writer", { filePath: "a.ts", content: "console.log(1)" })).toEqual([]);
    expect(proposedChanges("read", { filePath: "a.ts" })).toEqual([]);
    expect(proposedChanges("task", { command: "rm -rf /" })).toEqual([]);
  });

  test("arguments that do not fit the tool propose nothing", () => {
    expect(proposedChanges("write", { filePath: "a.ts" })).toEqual([]);
    expect(proposedChanges("write", { filePath: "", content: "x" })).toEqual([]);
    expect(proposedChanges("edit", { filePath: "a.ts", newString: 3 })).toEqual([]);
    expect(proposedChanges("multiedit", { filePath: "a.ts", edits: "x" })).toEqual([]);
    expect(proposedChanges("apply_patch", { patchText: "just some text\n+console.log(1)" })).toEqual([]);
    expect(
      proposedChanges("apply_patch", { patchText: "*** Begin Patch\n*** Add File: a.ts\n+console.log(1)" }),
    ).toEqual([]); // no End Patch: OpenCode rejects it
    expect(proposedChanges("bash", { command: ["ls"] })).toEqual([]);
    expect(proposedChanges("bash", null)).toEqual([]);
  });

  test("the work is bounded: a few thousand edits or files per call at most", () => {
    const edits = Array.from({ length: MAX_PATHS_PER_CALL + 500 }, () => ({ oldString: "a", newString: "b" }));
    expect(proposedChanges("multiedit", { filePath: "a.ts", edits })).toMatchObject([
      { replacements: { length: MAX_PATHS_PER_CALL } },
    ]);
    const own = edits.map((entry, index) => ({ ...entry, filePath: `f${index}.ts` }));
    expect(proposedChanges("multiedit", { edits: own })).toHaveLength(MAX_PATHS_PER_CALL);
    const files = Array.from({ length: MAX_FILES_PER_PATCH + 500 }, (_, index) => `*** Add File: f${index}.ts\n+x`);
    expect(proposedChanges("apply_patch", { patchText: envelope(...files) })).toHaveLength(MAX_FILES_PER_PATCH);
  });

  test("property: no arguments make it throw, for any tool it knows", () => {
    const tool = fc.constantFrom("write", "edit", "multiedit", "patch", "apply_patch", "bash", "shell", "other");
    const patchish = fc.array(
      fc.constantFrom(
        "*** Begin Patch",
        "*** End Patch",
        "*** Add File: a",
        "*** Update File: b",
        "*** Move to: c",
        "@@",
        "@@ -1,2 +1,2 @@",
        "+++ b/x",
        "--- a/x",
        "+x",
        "-x",
        " x",
        "",
      ),
      { maxLength: 20 },
    );
    const args = fc.oneof(
      fc.anything(),
      patchish.map((lines) => ({ patchText: lines.join("\n") })),
      fc.record(
        {
          filePath: fc.anything(),
          path: fc.anything(),
          oldString: fc.anything(),
          newString: fc.anything(),
          content: fc.anything(),
          edits: fc.anything(),
          command: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(tool, args, (name, value) => {
        expect(Array.isArray(proposedChanges(name, value))).toBe(true);
      }),
    );
  });

  test("property: an edit judged alone adds no line its old text already had as often", () => {
    const line = fc.constantFrom("a", "b", "console.log(x)", "  console.log(x)");
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 12 }),
        fc.array(line, { maxLength: 12 }),
        (oldLines, newLines) => {
          const [change] = proposedChanges("edit", {
            filePath: "a.ts",
            oldString: oldLines.join("\n"),
            newString: newLines.join("\n"),
          });
          const added = change?.kind === "edit" ? change.added.map((entry) => entry.text) : [];
          for (const text of new Set(newLines)) {
            const extra =
              newLines.filter((item) => item === text).length - oldLines.filter((item) => item === text).length;
            expect(added.filter((item) => item === text)).toHaveLength(Math.max(0, extra));
          }
        },
      ),
    );
  });
});
