/** What OpenCode's tools would add, read from a call's arguments (src/hosts/opencode/tool-changes.ts). */
import { describe, expect, test } from "vitest";
import { addedInPatch, proposedChanges } from "../../src/hosts/opencode/tool-changes.js";

describe("proposedChanges", () => {
  test("write: the whole new text, for the engine to compare with the file on disk (filePath or path)", () => {
    expect(proposedChanges("write", { filePath: "/p/a.ts", content: "x\n" })).toEqual([{ kind: "write", path: "/p/a.ts", content: "x\n" }]);
    expect(proposedChanges("write", { path: "a.ts", content: "x\n" })).toEqual([{ kind: "write", path: "a.ts", content: "x\n" }]);
  });

  test("edit: the new text's lines the replaced text did not hold", () => {
    expect(proposedChanges("edit", { filePath: "a.ts", oldString: 'console.log("a");\nreturn 1;', newString: 'console.log("a");\nreturn 2;' })).toEqual([
      { kind: "edit", path: "a.ts", added: [{ text: "return 2;" }] },
    ]);
  });

  test("an edit that keeps a violating line, or removes one, adds nothing", () => {
    expect(proposedChanges("edit", { filePath: "a.ts", oldString: "console.log(1)\nx", newString: "console.log(1)" })).toEqual([]);
    expect(proposedChanges("edit", { filePath: "a.ts", oldString: "console.log(1)\n", newString: "" })).toEqual([]);
  });

  test("multiedit: each edit, with its own file or the call's", () => {
    const changes = proposedChanges("multiedit", {
      filePath: "a.ts",
      edits: [
        { oldString: "a", newString: "b" },
        { filePath: "c.ts", oldString: "", newString: "d" },
      ],
    });
    expect(changes).toEqual([
      { kind: "edit", path: "a.ts", added: [{ text: "b" }] },
      { kind: "edit", path: "c.ts", added: [{ text: "d" }] },
    ]);
  });

  test("bash: the command", () => {
    expect(proposedChanges("bash", { command: "git push --force", description: "push" })).toEqual([{ kind: "command", command: "git push --force" }]);
  });

  test("a tool the plugin does not know, or arguments of another shape, propose nothing", () => {
    expect(proposedChanges("read", { filePath: "a.ts" })).toEqual([]);
    expect(proposedChanges("custom_writer", { filePath: "a.ts", content: "console.log(1)" })).toEqual([]);
    expect(proposedChanges("write", "not an object")).toEqual([]);
    expect(proposedChanges("write", { filePath: 3, content: "x" })).toEqual([]);
    expect(proposedChanges("toString", {})).toEqual([]);
  });
});

describe("addedInPatch", () => {
  test("OpenCode's patch format: added files whole, updated files' + lines, moves to their destination; context and - lines add nothing", () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: src/new.ts",
      "+export const a = 1;",
      "+console.log(a);",
      "*** Update File: src/old.ts",
      "@@ function f()",
      " context console.log(kept)",
      "-console.log(removed)",
      "+return 2;",
      "*** Update File: src/from.ts",
      "*** Move to: src/to.ts",
      "@@",
      "+moved line",
      "*** Delete File: src/gone.ts",
      "*** End Patch",
    ].join("\n");
    expect(addedInPatch(patch)).toEqual([
      {
        kind: "edit",
        path: "src/new.ts",
        added: [
          { text: "export const a = 1;", line: 1 },
          { text: "console.log(a);", line: 2 },
        ],
      },
      { kind: "edit", path: "src/old.ts", added: [{ text: "return 2;" }] },
      { kind: "edit", path: "src/to.ts", added: [{ text: "moved line" }] },
    ]);
  });

  test("unified diffs, numbered from each hunk header; an added line beginning with ++ is a line, not a header", () => {
    const patch = ["--- a/src/x.ts", "+++ b/src/x.ts", "@@ -1,3 +1,4 @@", " keep", "-old", "+new one", "+++ counter", " tail", "@@ -10,1 +11,2 @@", " ctx", "+later"].join("\n");
    expect(addedInPatch(patch)).toEqual([
      {
        kind: "edit",
        path: "src/x.ts",
        added: [
          { text: "new one", line: 2 },
          { text: "++ counter", line: 3 },
          { text: "later", line: 12 },
        ],
      },
    ]);
    expect(proposedChanges("apply_patch", { patchText: patch })).toHaveLength(1);
    expect(proposedChanges("patch", { patchText: patch })).toHaveLength(1);
  });
});
