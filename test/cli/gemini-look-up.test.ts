/**
 * A sub-folder's GEMINI.md in the commands (issue 44): `explain` and `render`
 * look up from the files they are given, as a session does from the files a
 * tool touches; `list` and `check` from every file of the project, so every
 * GEMINI.md a session could bring is listed and checked, hidden and
 * git-ignored folders included.
 */
import { beforeEach, describe, expect, test } from "vitest";
import { type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox(async (box) => {
  await box.write({
    "src/api/GEMINI.md": "Version every route.",
    "src/api/users.ts": "export {};\n",
    "src/web/page.ts": "export {};\n",
    ".github/GEMINI.md": "Pin every action.",
    ".github/workflows/ci.yml": "on: push\n",
    "generated/GEMINI.md": "Never edit by hand.",
    ".gitignore": "generated/\n",
  });
});
let box: Sandbox;
beforeEach(() => {
  box = current();
});

const delivered = (args: string[]) =>
  (JSON.parse(box.run(["explain", "--json", ...args]).stdout) as { delivered: Array<{ name: string }> }).delivered.map(
    (rule) => rule.name,
  );

describe("Gemini CLI's sub-folder GEMINI.md in the commands", () => {
  test("explain: the file's folders bring theirs, another folder's file brings none", () => {
    expect(delivered(["src/api/users.ts"])).toEqual(["src/api/GEMINI"]);
    expect(delivered(["src/web/page.ts"])).toEqual([]);
    expect(delivered([".github/workflows/ci.yml"])).toEqual([".github/GEMINI"]);
  });

  test("render: the message for a file under a sub-folder holds its GEMINI.md", () => {
    const { stdout } = box.run(["render", "--files", "src/api/users.ts"]);
    expect(stdout).toContain("Version every route.");
    expect(stdout).not.toContain("Pin every action.");
  });

  test("list and check: every GEMINI.md a session could bring, hidden and git-ignored folders included", () => {
    const listed = JSON.parse(box.run(["list", "--json"]).stdout) as { rules: Array<{ name: string }> };
    expect(listed.rules.map((rule) => rule.name).sort()).toEqual([
      ".github/GEMINI",
      "generated/GEMINI",
      "src/api/GEMINI",
    ]);
    const { code } = box.run(["check"]);
    expect(code).toBe(0);
  });
});
