import { describe, expect, test } from "vitest";
import { pathsFromPatch } from "../../src/hosts/opencode/patch-text.js";
import { pathsFromToolArgs, pathsFromToolOutput } from "../../src/hosts/opencode/tool-paths.js";
import { atTokens, mentionedRuleNames } from "../../src/select/mentions.js";
import { listedInProject, normalisePath, pathCandidatesInPrompt } from "../../src/session/paths.js";

/** What a listing adds to the session: the lines the tool gave, kept inside the project. */
const listed = (tool: string, output: string, root: string) => listedInProject(pathsFromToolOutput(tool, output), root);

describe("the working set of a session", () => {
  test("tool arguments name files: filePath, path, paths, multiedit edits and patches", () => {
    expect(pathsFromToolArgs({ filePath: "/p/src/a.ts" })).toEqual(["/p/src/a.ts"]);
    expect(pathsFromToolArgs({ path: "src", pattern: "**/*.ts" })).toEqual(["src"]);
    expect(pathsFromToolArgs({ paths: ["a.ts", "b.ts"] })).toEqual(["a.ts", "b.ts"]);
    expect(pathsFromToolArgs({ filePath: "a.ts", edits: [{ filePath: "b.ts", oldString: "x" }] })).toEqual([
      "a.ts",
      "b.ts",
    ]);
    expect(
      pathsFromToolArgs({
        patchText: "*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: src/old.ts\n*** End Patch",
      }),
    ).toEqual(["src/new.ts", "src/old.ts"]);
    expect(pathsFromToolArgs({ command: "ls" })).toEqual([]);
    expect(pathsFromToolArgs(undefined)).toEqual([]);
  });

  test("unified diffs name their files", () => {
    expect(pathsFromPatch("--- a/src/x.ts\n+++ b/src/x.ts\n@@\n")).toEqual(["src/x.ts", "src/x.ts"]);
    expect(pathsFromPatch("--- /dev/null\n+++ b/new.ts\n")).toEqual(["new.ts"]);
  });

  test("glob and grep results list files inside the project", () => {
    const output = "/p/src/a.ts\n/p/src/b.ts\n/elsewhere/c.ts\nFound 2 files";
    expect(listed("glob", output, "/p")).toEqual(["/p/src/a.ts", "/p/src/b.ts"]);
    expect(listed("grep", "Found 1 matches\n/p/src/a.ts:\n  Line 3: x", "/p")).toEqual(["/p/src/a.ts"]);
    expect(listed("read", output, "/p")).toEqual([]);
  });

  test("paths are project-relative POSIX inside the project and absolute outside", () => {
    expect(normalisePath("/p/src/a.ts", "/p", "/p")).toBe("src/a.ts");
    expect(normalisePath("a.ts", "/p/pkg", "/p")).toBe("pkg/a.ts");
    expect(normalisePath("../../etc/hosts", "/p/pkg", "/p")).toBe("/etc/hosts");
    expect(normalisePath("file:///p/src/a%20b.ts", "/p", "/p")).toBe("src/a b.ts");
  });

  test("the prompt names files with @, backticks and bare paths", () => {
    const candidates = pathCandidatesInPrompt(
      "Fix @src/app.ts and `lib/util.js`, then look at src/db/user.ts. See https://x.io/a.ts",
    );
    expect(candidates).toEqual(expect.arrayContaining(["src/app.ts", "lib/util.js", "src/db/user.ts"]));
    expect(candidates).not.toContain("https://x.io/a.ts");
  });

  test("@name tokens: rule mentions are the ones that name a rule", () => {
    expect(atTokens("use @typescript and @backend/api, mail me@example.com")).toEqual(["typescript", "backend/api"]);
    expect(mentionedRuleNames("please follow @testing.", new Set(["testing", "other"]))).toEqual(["testing"]);
    expect(mentionedRuleNames("no mention of testing", new Set(["testing"]))).toEqual([]);
  });
});
