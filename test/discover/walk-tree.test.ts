/** The walker over a project's own tree: the nested rules-folder search and `check`'s project files walk with it. */
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { ignoresAbove } from "../../src/discover/gitignore.js";
import { walkBudget } from "../../src/discover/walk-limits.js";
import { SKIPPED_FOLDERS, walkFolder, walkProjectTree } from "../../src/discover/walk.js";
import { shown } from "../support/shown-warnings.js";
import { writeTree } from "../support/temp-folder.js";
import { makeRoot, walkFs } from "../support/walk.js";

describe("walkFolder over a project's own tree (the nested rules-folder search, check's project files)", () => {
  test("enter decides which folders are walked; hidden folders never are", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a/x.md": "x", "node_modules/dep/y.md": "y", ".git/z.md": "z", "b/c/w.md": "w" });
    const walk = await walkFolder(root, walkFs(), { enter: (name) => !SKIPPED_FOLDERS.has(name) });
    expect(walk.files.map((f) => f.relPath)).toEqual(["a/x.md", "b/c/w.md"]);
  });

  test("followLinks: false passes symlinks over, neither entered nor returned", async () => {
    const root = await makeRoot();
    const other = await makeRoot();
    await writeTree(other, { "in-link.md": "l", "real.md": "r" });
    await writeTree(root, { "own.md": "o" });
    await symlink(other, join(root, "linked-folder"));
    await symlink(join(other, "real.md"), join(root, "linked.md"));
    const walk = await walkFolder(root, walkFs(), { followLinks: false });
    expect(walk).toEqual({
      files: [{ path: join(root, "own.md"), relPath: "own.md", size: 1, version: expect.any(Object) }],
      warnings: [],
    });
  });

  test("breadth first: onFolder sees shallow folders first, each with all its entries (hidden ones too) in name order", async () => {
    const root = await makeRoot();
    await writeTree(root, { "b/deep/x.txt": "x", "a/.cursorrules": "c", "c/file.txt": "f", ".hidden/y.txt": "y" });
    const seen: Array<[string, string[]]> = [];
    const onFolder = (_dir: string, relPath: string, entries: readonly { name: string }[]) => {
      seen.push([relPath, entries.map((entry) => entry.name)]);
    };
    await walkFolder(root, walkFs(), { accept: () => false, order: "breadth", onFolder });
    expect(seen).toEqual([
      ["", [".hidden", "a", "b", "c"]],
      ["a", [".cursorrules"]],
      ["b", ["deep"]],
      ["c", ["file.txt"]],
      ["b/deep", ["x.txt"]],
    ]);
    const depthFirst: string[] = [];
    await walkFolder(root, walkFs(), {
      accept: () => false,
      onFolder: (_dir, relPath) => void depthFirst.push(relPath),
    });
    expect(depthFirst).toEqual(["", "a", "b", "b/deep", "c"]);
  });

  test("onFolder returning false ends the walk", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a/x.md": "x", "b/y.md": "y", "c/z.md": "z" });
    const walk = await walkFolder(root, walkFs(), { onFolder: (_dir, relPath) => relPath !== "b" });
    expect(walk.files.map((f) => f.relPath)).toEqual(["a/x.md"]);
    expect(walk.warnings).toEqual([]);
  });

  test("a budget with its own limits stops the walk with one warning", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a/x.md": "x", "b/y.md": "y", "c/z.md": "z" });
    const walk = await walkFolder(root, walkFs(), {
      budget: walkBudget({ folders: 2, entries: Infinity, files: Infinity }),
    });
    expect(walk.files.map((f) => f.relPath)).toEqual(["a/x.md"]);
    expect(walk.warnings).toMatchObject([
      { code: "walk-limit", severity: "error", limit: 2, what: "folders", path: join(root, "b") },
    ]);
    expect(shown(walk.warnings)[0]?.message).toBe(
      "more than 2 folders in this source's rule folders; the walk stopped here and the rest was not read",
    );
  });

  test("maxDepth: folders that many levels down are not read", async () => {
    const root = await makeRoot();
    await writeTree(root, { "one.md": "1", "a/two.md": "2", "a/b/three.md": "3" });
    const walk = await walkFolder(root, walkFs(), { maxDepth: 2 });
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
    const walk = await walkProjectTree(root, walkFs(), { onFolder: (_dir, relPath) => void seen.push(relPath) });
    expect(seen).toEqual(["", "a", "z", "a/b"]);
    expect(walk).toEqual({ files: [], warnings: [] });
  });

  test("walkProjectTree with hiddenFolders: hidden folders entered too, but never version control or a tool's cache", async () => {
    const root = await makeRoot();
    await writeTree(root, {
      ".cursor/rules/a.mdc": "a",
      ".git/e.md": "e",
      ".venv/lib/x.py": "x",
      "node_modules/p/i.js": "i",
      "z/f.md": "f",
    });
    const seen: string[] = [];
    await walkProjectTree(root, walkFs(), {
      hiddenFolders: true,
      onFolder: (_dir, relPath) => void seen.push(relPath),
    });
    expect(seen).toEqual(["", ".cursor", "z", ".cursor/rules"]);
  });

  test("gitignore: what git ignores is not entered; without it (check's project files) it is", async () => {
    const root = await makeRoot();
    await writeTree(root, {
      ".gitignore": "cache/\n/top-only/\n",
      ".git/info/exclude": "scratch\n",
      "cache/a.txt": "",
      "src/cache/b.txt": "",
      "top-only/c.txt": "",
      "src/top-only/d.txt": "",
      "scratch/e.txt": "",
      "src/.gitignore": "gen-*/\n!gen-keep/\n",
      "src/gen-x/f.txt": "",
      "src/gen-keep/g.txt": "",
    });
    const walked = async (gitignore: boolean) => {
      const seen: string[] = [];
      const options = { onFolder: (_dir: string, relPath: string) => void seen.push(relPath) };
      await walkProjectTree(
        root,
        nodeRuleFs,
        gitignore ? { ...options, gitignore: await ignoresAbove(nodeRuleFs, root, root) } : options,
      );
      return seen;
    };
    expect(await walked(true)).toEqual(["", "src", "src/gen-keep", "src/top-only"]);
    expect(await walked(false)).toEqual([
      "",
      "cache",
      "scratch",
      "src",
      "top-only",
      "src/cache",
      "src/gen-keep",
      "src/gen-x",
      "src/top-only",
    ]);
  });

  test("gitignore from a sub-folder: the ignore files above it apply below it; the sub-folder is walked even if they ignore it", async () => {
    const walkedFrom = async (tree: Record<string, string>) => {
      const root = await makeRoot();
      await writeTree(root, tree);
      const start = join(root, "pkg");
      const seen: string[] = [];
      await walkProjectTree(start, nodeRuleFs, {
        gitignore: await ignoresAbove(nodeRuleFs, root, start),
        onFolder: (_dir, relPath) => void seen.push(relPath),
      });
      return seen;
    };
    expect(await walkedFrom({ ".gitignore": "lib/\n", "pkg/lib/a.txt": "", "pkg/src/b.txt": "" })).toEqual(["", "src"]);
    expect(await walkedFrom({ ".gitignore": "/pkg/\n", "pkg/lib/a.txt": "", "pkg/src/b.txt": "" })).toEqual([
      "",
      "lib",
      "src",
    ]);
  });

  test("dependency and build folders are one list", () => {
    expect([...SKIPPED_FOLDERS].sort()).toEqual([
      "__pycache__",
      "build",
      "coverage",
      "dist",
      "node_modules",
      "out",
      "target",
      "vendor",
      "venv",
    ]);
  });
});
