/**
 * The text a finished tool call brought into the session, by file: what
 * content conditions look at (issue 29). The adapter reads the call and a
 * read's file text (src/hosts/opencode/tool-touch.ts); the session takes the
 * text from them, by the file in working-set form (src/session/placed-call.ts).
 */
import { describe, expect, test } from "vitest";
import { fileTextOfRead, toolResultOf } from "../../src/hosts/opencode/tool-touch.js";
import { placeCall, textsBroughtIn as sessionTexts } from "../../src/session/placed-call.js";

/** What the session takes in of a finished call of `tool` with `args` and `output`, in a project at /p. */
const textsBroughtIn = (tool: string, args: unknown, output: string) => {
  const result = toolResultOf(tool, "c1", args, output);
  const call = placeCall({ tool, ...result.readCall() }, { directory: "/p", projectRoot: "/p" });
  return sessionTexts(call, result.fileText);
};

describe("the text a tool brought in", () => {
  test("a read on OpenCode 1.18: the file's lines without their numbers, without the wrapper and the end note", () => {
    const output =
      "<path>/p/src/a.ts</path>\n<type>file</type>\n<content>\n1: import x from 'y';\n2: \n3: legacyFetch(1);\n\n(End of file - total 3 lines)\n</content>";
    expect(fileTextOfRead(output)).toBe("import x from 'y';\n\nlegacyFetch(1);");
    expect(textsBroughtIn("read", { filePath: "/p/src/a.ts" }, output)).toEqual([
      { file: "src/a.ts", text: "import x from 'y';\n\nlegacyFetch(1);" },
    ]);
  });

  test("a read in the earlier numbered form, and one in no known form", () => {
    expect(fileTextOfRead("<file>\n00001| const a = 1;\n00002| export default a;\n</file>")).toBe(
      "const a = 1;\nexport default a;",
    );
    expect(fileTextOfRead("just text\nof a file")).toBe("just text\nof a file");
  });

  test("write, edit and patch: the new text, by the file it goes to (1.x and 2.x argument names)", () => {
    expect(textsBroughtIn("write", { filePath: "a.ts", content: "x = 1" }, "")).toEqual([
      { file: "a.ts", text: "x = 1" },
    ]);
    expect(textsBroughtIn("write", { path: "b.ts", content: "y" }, "")).toEqual([{ file: "b.ts", text: "y" }]);
    expect(textsBroughtIn("edit", { filePath: "a.ts", oldString: "old", newString: "old\nnewLine()" }, "")).toEqual([
      { file: "a.ts", text: "newLine()" },
    ]);
    const patchText = "*** Begin Patch\n*** Add File: c.ts\n+legacyFetch()\n*** End Patch";
    expect(textsBroughtIn("apply_patch", { patchText }, "")).toEqual([{ file: "c.ts", text: "legacyFetch()" }]);
  });

  test("tools that bring in no file's text: none", () => {
    expect(textsBroughtIn("bash", { command: "cat a.ts" }, "legacyFetch(")).toEqual([]);
    expect(textsBroughtIn("glob", { pattern: "**/*.ts" }, "a.ts\nb.ts")).toEqual([]);
    expect(textsBroughtIn("read", undefined, "text")).toEqual([]);
  });
});
