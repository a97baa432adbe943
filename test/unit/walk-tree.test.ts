/** The walker over a project's own tree: the nested Cursor search and `check`'s project files walk with it. */
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { SKIPPED_FOLDERS, walkBudget, walkFolder, walkProjectTree } from "../../src/sources/walk.js";
import { shown } from "../sources/shown-warnings.js";
import { writeTree } from "./helpers.js";
import { makeRoot, spyFs } from "./walk-helpers.js";

describe("walkFolder over a project's own tree (the nested Cursor search, check's project files)", () => {
  test("enter decides which folders are walked; hidden folders never are", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a/x.md": "x", "node_modules/dep/y.md": "y", ".git/z.md": "z", "b/c/w.md": "w" });
    const walk = await walkFolder(root, spyFs(), { enter: (name) => !SKIPPED_FOLDERS.has(name) });
    expect(walk.files.map((f) => f.relPath)).toEqual(["a/x.md", "b/c/w.md"]);
  });

  test("followLinks: false passes symlinks over, neither entered nor returned", async () => {
    const root = await makeRoot();
    const other = await makeRoot();
    await writeTree(other, { "in-link.md": "l", "real.md": "r" });
    await writeTree(root, { "own.md": "o" });
    await symlink(other, join(root, "linked-folder"));
    await symlink(join(other, "real.md"), join(root, "linked.md"));
    const walk = await walkFolder(root, spyFs(), { followLinks: false });
    expect(walk).toEqual({ files: [{ path: join(root, "own.md"), relPath: "own.md", size: 1 }], warnings: [] });
  });

  test("breadth first: onFolder sees shallow folders first, each with all its entries (hidden ones too) in name order", async () => {
    const root = await makeRoot();
    await writeTree(root, { "b/deep/x.txt": "x", "a/.cursorrules": "c", "c/file.txt": "f", ".hidden/y.txt": "y" });
    const seen: Array<[string, string[]]> = [];
    const onFolder = (_dir: string, relPath: string, entries: readonly { name: string }[]) => {
      seen.push([relPath, entries.map((entry) => entry.name)]);
    };
    await walkFolder(root, spyFs(), { accept: () => false, order: "breadth", onFolder });
    expect(seen).toEqual([
      ["", [".hidden", "a", "b", "c"]],
      ["a", [".cursorrules"]],
      ["b", ["deep"]],
      ["c", ["file.txt"]],
      ["b/deep", ["x.txt"]],
    ]);
    const depthFirst: string[] = [];
    await walkFolder(root, spyFs(), { accept: () => false, onFolder: (_dir, relPath) => void depthFirst.push(relPath) });
    expect(depthFirst).toEqual(["", "a", "b", "b/deep", "c"]);
  });

  test("onFolder returning false ends the walk", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a/x.md": "x", "b/y.md": "y", "c/z.md": "z" });
    const walk = await walkFolder(root, spyFs(), { onFolder: (_dir, relPath) => relPath !== "b" });
    expect(walk.files.map((f) => f.relPath)).toEqual(["a/x.md"]);
    expect(walk.warnings).toEqual([]);
  });

  test("a budget with its own limits stops the walk with one warning", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a/x.md": "x", "b/y.md": "y", "c/z.md": "z" });
    const walk = await walkFolder(root, spyFs(), { budget: walkBudget({ folders: 2, entries: Infinity, files: Infinity }) });
    expect(walk.files.map((f) => f.relPath)).toEqual(["a/x.md"]);
    expect(walk.warnings).toMatchObject([{ code: "walk-limit", severity: "error", limit: 2, what: "folders", path: join(root, "b") }]);
    expect(shown(walk.warnings)[0]?.message).toBe("more than 2 folders in this source's rule folders; the walk stopped here and the rest was not read");
  });

  test("maxDepth: folders that many levels down are not read", async () => {
    const root = await makeRoot();
    await writeTree(root, { "one.md": "1", "a/two.md": "2", "a/b/three.md": "3" });
    const walk = await walkFolder(root, spyFs(), { maxDepth: 2 });
    expect(walk.files.map((f) => f.relPath)).toEqual(["a/two.md", "one.md"]);
    expect(walk.warnings).toMatchObject([{ code: "folder-too-deep", path: join(root, "a", "b"), maxDepth: 2 }]);
  });

  test("walkProjectTree: shallow folders first, no symlink, hidden, dependency or build folder entered, no file returned", async () => {
    const root = await makeRoot();
    const other = await makeRoot();
    await writeTree(other, { "x/y.md": "y" });
    await writeTree(root, { "a/b/c.md": "c", "dist/d.md": "d", ".git/e.md": "e", "z/f.md": "f" });
    await symlink(other, join(root, "link"));
    const seen: string[] = [];
    const walk = await walkProjectTree(root, spyFs(), { onFolder: (_dir, relPath) => void seen.push(relPath) });
    expect(seen).toEqual(["", "a", "z", "a/b"]);
    expect(walk).toEqual({ files: [], warnings: [] });
  });

  test("dependency and build folders are one list", () => {
    expect([...SKIPPED_FOLDERS].sort()).toEqual(["__pycache__", "build", "coverage", "dist", "node_modules", "out", "target", "vendor", "venv"]);
  });
});
