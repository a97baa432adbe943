/** Cursor's nested `.cursor/rules` below the directory: found by the shared walker, breadth first, within its bounds. */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { NESTED_SEARCH } from "../../src/sources/cursor.js";
import { nodeRuleFs } from "../../src/sources/fs.js";
import { type Box, makeBox } from "./helpers.js";
import { shown } from "./shown-warnings.js";

let box: Box;
beforeEach(async () => {
  box = await makeBox();
});
afterEach(() => box.cleanup());

const cursorNames = async (overrides = {}) => {
  const loaded = await box.load({ sources: ["cursor"] }, overrides);
  return { names: loaded.rules.map((rule) => rule.name), warnings: loaded.warnings };
};

describe("nested .cursor/rules", () => {
  test("down to 8 levels below the directory; deeper, hidden, dependency and build folders are not searched, without a warning", async () => {
    const eight = "a/b/c/d/e/f/g/h";
    await box.write(box.project, {
      [`${eight}/.cursor/rules/deep.mdc`]: "Deep.",
      [`${eight}/i/.cursor/rules/deeper.mdc`]: "Too deep.",
      "dist/.cursor/rules/built.mdc": "Build output.",
      "vendor/lib/.cursorrules": "Vendored.",
      "node_modules/dep/.cursor/rules/dep.mdc": "Dependency.",
      ".hidden/.cursor/rules/hidden.mdc": "Hidden.",
      "pkg/.cursorrules": "Legacy in pkg.",
    });
    const { names, warnings } = await cursorNames();
    expect(names.sort()).toEqual([`${eight}/deep`, "pkg/cursorrules"]);
    expect(warnings).toEqual([]);
  });

  test("past the folder limit: a warning (not an error), and the shallow folders were searched first", async () => {
    const saved = NESTED_SEARCH.maxFolders;
    NESTED_SEARCH.maxFolders = 4;
    try {
      await box.write(box.project, {
        "a/deep/deeper/.cursorrules": "Deep.",
        "b/.cursorrules": "B.",
        "c/.cursorrules": "C.",
        "d/.cursorrules": "D.",
      });
      const { names, warnings } = await cursorNames();
      // The project, a, b and c are searched; then the limit, before d and a/deep.
      expect(names.sort()).toEqual(["b/cursorrules", "c/cursorrules"]);
      expect(warnings).toMatchObject([{ code: "nested-search-limit", severity: "warning", path: box.project }]);
      expect(shown(warnings)[0]?.message).toBe("more than 4 folders below the project; nested .cursor/rules folders past them were not searched");
    } finally {
      NESTED_SEARCH.maxFolders = saved;
    }
  });

  test("a sub-folder that cannot be read is a warning (not an error); the directory itself is left to the other sources", async () => {
    await box.write(box.project, { "locked/.cursorrules": "Locked.", "open/.cursorrules": "Open." });
    const locked = join(box.project, "locked");
    const eacces = (path: string) => Object.assign(new Error(`EACCES: ${path}`), { code: "EACCES" });
    const fs = { ...nodeRuleFs, readdir: async (path: string) => (path === locked ? Promise.reject(eacces(path)) : nodeRuleFs.readdir(path)) };
    const { names, warnings } = await cursorNames({ fs });
    expect(names).toEqual(["open/cursorrules"]);
    expect(warnings).toMatchObject([{ code: "nested-folder-unreadable", severity: "warning", path: locked, reason: "EACCES" }]);
    expect(shown(warnings)[0]?.message).toBe("folder cannot be read (EACCES); nested Cursor rules in it were not searched");

    const root = { ...nodeRuleFs, readdir: async (path: string) => (path === box.project ? Promise.reject(eacces(path)) : nodeRuleFs.readdir(path)) };
    expect((await cursorNames({ fs: root })).warnings).toEqual([]);
  });
});
