import { execFileSync } from "node:child_process";
import { mkdir, realpath, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fileVersion, nodeRuleFs } from "../../src/discover/fs.js";
import { walkFolder } from "../../src/discover/walk.js";
import { shown } from "../support/shown-warnings.js";
import { writeTree } from "../support/temp-folder.js";
import { eacces } from "../support/fake-fs.js";
import { makeRoot, walkFs } from "../support/walk.js";

/** Every file found carries its version (fs.ts `fileVersion`), which the parse cache keys on. */
const VERSION = { stamp: expect.stringMatching(/^\d+:\d+:\d+:[\d.]+:[\d.]+$/), changedAt: expect.any(Number) };

describe("walkFolder", () => {
  test("finds .md and .mdc files, in name order, with sizes and POSIX relative paths", async () => {
    const root = await makeRoot();
    await writeTree(root, { "b.mdc": "bb", "a.md": "a", "c/d.md": "ddd", "c/e/f.mdc": "f", "z.md": "zz" });
    const walk = await walkFolder(root, walkFs());
    expect(walk.warnings).toEqual([]);
    expect(walk.files).toEqual([
      { path: join(root, "a.md"), relPath: "a.md", size: 1, version: VERSION },
      { path: join(root, "b.mdc"), relPath: "b.mdc", size: 2, version: VERSION },
      { path: join(root, "c", "d.md"), relPath: "c/d.md", size: 3, version: VERSION },
      { path: join(root, "c", "e", "f.mdc"), relPath: "c/e/f.mdc", size: 1, version: VERSION },
      { path: join(root, "z.md"), relPath: "z.md", size: 2, version: VERSION },
    ]);
  });

  test("upper-case extensions count as rule files", async () => {
    const root = await makeRoot();
    await writeTree(root, { "README.MD": "x", "x.MDC": "y" });
    expect((await walkFolder(root, walkFs())).files.map((f) => f.relPath)).toEqual(["README.MD", "x.MDC"]);
  });

  test("other extensions are ignored silently", async () => {
    const root = await makeRoot();
    await writeTree(root, { "notes.txt": "x", "rule.md.bak": "x", "rule.markdown": "x", md: "x", "rule.md": "ok" });
    const walk = await walkFolder(root, walkFs());
    expect(walk.files.map((f) => f.relPath)).toEqual(["rule.md"]);
    expect(walk.warnings).toEqual([]);
  });

  test("hidden files and folders are skipped at every depth", async () => {
    const root = await makeRoot();
    await writeTree(root, {
      ".hidden.md": "x",
      ".git/x.md": "x",
      "sub/.secret/y.md": "y",
      "sub/.z.mdc": "z",
      "sub/ok.md": "ok",
    });
    const walk = await walkFolder(root, walkFs());
    expect(walk.files.map((f) => f.relPath)).toEqual(["sub/ok.md"]);
    expect(walk.warnings).toEqual([]);
  });

  test("a missing rules folder is no rules and no warning", async () => {
    const root = await makeRoot();
    expect(await walkFolder(join(root, "nope"), walkFs())).toEqual({ files: [], warnings: [] });
  });

  test("a rules folder that is a file gives a warning", async () => {
    const root = await makeRoot();
    const file = join(root, "rules");
    await writeFile(file, "I am a file");
    const walk = await walkFolder(file, walkFs());
    expect(walk.files).toEqual([]);
    expect(shown(walk.warnings)).toEqual([{ path: file, message: "rules folder is not a folder; it was ignored" }]);
    expect(walk.warnings).toMatchObject([{ code: "folder-not-a-folder", severity: "error" }]);
  });

  test("a rules folder under a file (ENOTDIR) is silently absent", async () => {
    const root = await makeRoot();
    await writeFile(join(root, "f"), "x");
    expect(await walkFolder(join(root, "f", "rules"), walkFs())).toEqual({ files: [], warnings: [] });
  });

  test("a rules folder that cannot be read gives a warning", async () => {
    const root = await makeRoot();
    const fs = walkFs({
      stat: async (path) => {
        throw eacces("scandir", path);
      },
    });
    const walk = await walkFolder(root, fs);
    expect(walk.files).toEqual([]);
    expect(shown(walk.warnings)).toEqual([
      { path: root, message: "rules folder cannot be read (EACCES); its rules were not loaded" },
    ]);
    expect(walk.warnings).toEqual([{ code: "folder-unreadable", severity: "error", path: root, reason: "EACCES" }]);
  });

  test("permission denied on a sub-folder: a warning, and the other rules still load", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a.md": "a", "locked/x.md": "x", "z.md": "z" });
    const locked = join(root, "locked");
    const fs = walkFs({
      readdir: async (path) => (path === locked ? Promise.reject(eacces("scandir", path)) : nodeRuleFs.readdir(path)),
    });
    const walk = await walkFolder(root, fs);
    expect(walk.files.map((f) => f.relPath)).toEqual(["a.md", "z.md"]);
    expect(shown(walk.warnings)).toEqual([
      { path: locked, message: "folder cannot be read (EACCES); its rules were not loaded" },
    ]);
  });

  test("a symlinked file is followed, named after the link", async () => {
    const root = await makeRoot();
    const other = await makeRoot();
    await writeTree(other, { "real.md": "12345" });
    await symlink(join(other, "real.md"), join(root, "linked.md"));
    const walk = await walkFolder(root, walkFs());
    expect(walk).toEqual({
      files: [{ path: join(root, "linked.md"), relPath: "linked.md", size: 5, version: VERSION }],
      warnings: [],
    });
    // The version is the file the link points at: a change there is a change of the rule.
    expect(walk.files[0]?.version).toEqual(fileVersion(await stat(join(other, "real.md"))));
  });

  test("a symlinked folder is followed", async () => {
    const root = await makeRoot();
    const shared = await makeRoot();
    await writeTree(shared, { "team.md": "t", "deep/er.mdc": "e" });
    await symlink(shared, join(root, "shared"));
    const walk = await walkFolder(root, walkFs());
    expect(walk.warnings).toEqual([]);
    expect(walk.files.map((f) => [f.relPath, f.path])).toEqual([
      ["shared/deep/er.mdc", join(root, "shared", "deep", "er.mdc")],
      ["shared/team.md", join(root, "shared", "team.md")],
    ]);
  });

  test("two links to the same folder: it is read once, through the first; the second is reported", async () => {
    const root = await makeRoot();
    const shared = await makeRoot();
    await writeTree(shared, { "s.md": "s" });
    await symlink(shared, join(root, "one"));
    await symlink(shared, join(root, "two"));
    const walk = await walkFolder(root, walkFs());
    expect(shown(walk.warnings)).toEqual([
      {
        path: join(root, "two"),
        message: `this folder is ${await realpath(shared)}, already read through another path; not read again`,
      },
    ]);
    expect(walk.files.map((f) => f.relPath)).toEqual(["one/s.md"]);
  });

  test("a symlink to a non-rule file is ignored", async () => {
    const root = await makeRoot();
    await writeTree(root, { "data.json": "{}" });
    await symlink(join(root, "data.json"), join(root, "data-link.txt"));
    expect(await walkFolder(root, walkFs())).toEqual({ files: [], warnings: [] });
  });

  test("a symlink loop ends that branch with a warning and does not hang", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a.md": "a", "sub/b.md": "b" });
    const loop = join(root, "sub", "back-to-root");
    await symlink(root, loop);
    const walk = await walkFolder(root, walkFs());
    expect(walk.files.map((f) => f.relPath)).toEqual(["a.md", "sub/b.md"]);
    expect(shown(walk.warnings)).toEqual([
      { path: loop, message: `symlink loop: this folder leads back to ${root}; the walk of this branch stopped here` },
    ]);
  }, 5000);

  test("a folder linking to itself ends with a warning", async () => {
    const root = await makeRoot();
    await writeTree(root, { "ok.md": "ok" });
    await symlink(".", join(root, "self"));
    const walk = await walkFolder(root, walkFs());
    expect(walk.files.map((f) => f.relPath)).toEqual(["ok.md"]);
    expect(shown(walk.warnings)).toEqual([
      {
        path: join(root, "self"),
        message: `symlink loop: this folder leads back to ${root}; the walk of this branch stopped here`,
      },
    ]);
  }, 5000);

  test("a link that links to itself (ELOOP) is reported and skipped", async () => {
    const root = await makeRoot();
    await writeTree(root, { "ok.md": "ok" });
    await symlink("me.md", join(root, "me.md"));
    const walk = await walkFolder(root, walkFs());
    expect(walk.files.map((f) => f.relPath)).toEqual(["ok.md"]);
    expect(shown(walk.warnings)).toEqual([{ path: join(root, "me.md"), message: "cannot be read (ELOOP); skipped" }]);
  }, 5000);

  test("a dangling symlink named like a rule is reported; one with another name is not", async () => {
    const root = await makeRoot();
    await symlink(join(root, "gone.md"), join(root, "dangling.md"));
    await symlink(join(root, "gone.txt"), join(root, "dangling.txt"));
    expect(shown((await walkFolder(root, walkFs())).warnings)).toEqual([
      { path: join(root, "dangling.md"), message: "cannot be read (ENOENT); skipped" },
    ]);
  });

  test("a symlink to a FIFO is never opened and is reported; a FIFO named .md too", async () => {
    const root = await makeRoot();
    const elsewhere = await makeRoot();
    const fifo = join(elsewhere, "pipe");
    execFileSync("mkfifo", [fifo]);
    execFileSync("mkfifo", [join(root, "direct.md")]);
    await symlink(fifo, join(root, "pipe.md"));
    await writeTree(root, { "real.md": "real" });
    const fs = walkFs();
    const walk = await walkFolder(root, fs);
    expect(walk.files.map((f) => f.relPath)).toEqual(["real.md"]);
    const message = "is not a regular file (a device, FIFO or socket); never opened, skipped";
    expect(shown(walk.warnings)).toEqual([
      { path: join(root, "direct.md"), message },
      { path: join(root, "pipe.md"), message },
    ]);
    expect(fs.readFile).not.toHaveBeenCalled();
  }, 5000);

  test("a custom accept function decides which files are rules", async () => {
    const root = await makeRoot();
    await writeTree(root, { "a.md": "a", "AGENTS.txt": "x" });
    const walk = await walkFolder(root, walkFs(), { accept: (name) => name.endsWith(".txt") });
    expect(walk.files.map((f) => f.relPath)).toEqual(["AGENTS.txt"]);
  });

  test("very deep nesting stops with a warning rather than recursing forever", async () => {
    const root = await makeRoot();
    const segments = Array.from({ length: 70 }, (_, i) => `d${i}`);
    await mkdir(join(root, ...segments), { recursive: true });
    await writeTree(root, {
      [`${segments.slice(0, 3).join("/")}/shallow.md`]: "s",
      [`${segments.join("/")}/deep.md`]: "d",
    });
    const walk = await walkFolder(root, walkFs());
    expect(walk.files.map((f) => f.relPath)).toEqual([`${segments.slice(0, 3).join("/")}/shallow.md`]);
    expect(walk.warnings).toHaveLength(1);
    expect(shown(walk.warnings)[0]?.message).toBe("folders nested deeper than 64 levels; this branch was not read");
    expect(walk.warnings[0]).toMatchObject({ code: "folder-too-deep", severity: "error", maxDepth: 64 });
  });
});
