import { execFileSync } from "node:child_process";
import { mkdir, realpath, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test, vi } from "vitest";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { shown } from "../support/shown-warnings.js";
import { discoverSandbox, GOOD } from "../support/discover.js";
import { writeTree } from "../support/temp-folder.js";

const { box, discover } = discoverSandbox();

describe("discoverRules: the spec's rule file formats", () => {
  test("Loading a standard markdown rule: my-rule.md is loaded as `my-rule`", async () => {
    await writeTree(box.projectDir, { "my-rule.md": "Use tabs." });
    const { rules, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      name: "my-rule",
      scope: "project",
      source: "native",
      content: "Use tabs.",
      path: join(box.projectDir, "my-rule.md"),
      displayPath: ".opencode/rules/my-rule.md",
    });
  });

  test("Loading a markdown with metadata rule: my-rule.mdc with globs", async () => {
    await writeTree(box.projectDir, {
      "my-rule.mdc": '---\nglobs:\n  - "src/components/**/*.ts"\n---\n\nThis is a rule for TypeScript components.\n',
    });
    const { rules } = await discover();
    expect(rules).toEqual([
      expect.objectContaining({
        name: "my-rule",
        conditions: { files: ["src/components/**/*.ts"] },
        content: "This is a rule for TypeScript components.",
      }),
    ]);
  });

  test("Loading a rule with no metadata: another-rule.mdc has no conditions", async () => {
    await writeTree(box.projectDir, { "another-rule.mdc": "This rule should always apply.\n" });
    const { rules } = await discover();
    expect(rules).toEqual([
      expect.objectContaining({
        name: "another-rule",
        conditions: {},
        alwaysApply: undefined,
        content: "This rule should always apply.",
      }),
    ]);
  });

  test("sub-folders give names like `sub/name`", async () => {
    await writeTree(box.projectDir, { "sub/name.md": "x", "sub/deeper/n2.mdc": "y" });
    expect((await discover()).rules.map((r) => r.name)).toEqual(["sub/deeper/n2", "sub/name"]);
  });

  test("hidden files/folders and other extensions are not rules", async () => {
    await writeTree(box.projectDir, { ".draft.md": "x", ".wip/a.md": "x", "notes.txt": "x", "keep.md": "k" });
    const { rules, warnings, files } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["keep"]);
    expect(files.map((f) => f.relPath)).toEqual(["keep.md"]);
    expect(warnings).toEqual([]);
  });

  test("no rule folders at all: nothing found, no warnings", async () => {
    expect(await discover()).toMatchObject({ rules: [], warnings: [], files: [], references: [] });
  });
});

describe("discoverRules: where rules are found", () => {
  test("global rules under ~/.config/opencode/rules come first, then project rules", async () => {
    await writeTree(box.globalDir, { "global-rule.md": "G", "another-rule.mdc": "A" });
    await writeTree(box.projectDir, { "project-rule.md": "P" });
    const { rules, files } = await discover();
    expect(rules.map((r) => [r.scope, r.name])).toEqual([
      ["global", "another-rule"],
      ["global", "global-rule"],
      ["project", "project-rule"],
    ]);
    expect(rules[0]?.displayPath).toBe("~/.config/opencode/rules/another-rule.mdc");
    // What the debug log names: "Discovered global rule: global-rule.md".
    expect(files.map((f) => `Discovered ${f.scope} rule: ${f.relPath}`)).toEqual([
      "Discovered global rule: another-rule.mdc",
      "Discovered global rule: global-rule.md",
      "Discovered project rule: project-rule.md",
    ]);
  });

  test("XDG_CONFIG_HOME moves the global folder", async () => {
    const xdg = await realpath(await box.dirs.make("rulebook-xdg-"));
    await writeTree(join(xdg, "opencode", "rules"), { "from-xdg.md": "X" });
    await writeTree(box.globalDir, { "from-home.md": "H" });
    expect((await discover({ env: { XDG_CONFIG_HOME: xdg } })).rules.map((r) => r.name)).toEqual(["from-xdg"]);
  });

  test("OPENCODE_CONFIG_DIR wins over XDG_CONFIG_HOME", async () => {
    const oc = await realpath(await box.dirs.make("rulebook-oc-"));
    const xdg = await realpath(await box.dirs.make("rulebook-xdg-"));
    await writeTree(join(oc, "rules"), { "from-oc.md": "O" });
    await writeTree(join(xdg, "opencode", "rules"), { "from-xdg.md": "X" });
    expect(
      (await discover({ env: { OPENCODE_CONFIG_DIR: oc, XDG_CONFIG_HOME: xdg } })).rules.map((r) => r.name),
    ).toEqual(["from-oc"]);
  });

  test("monorepo: every .opencode/rules from the worktree down to the directory, nearest last", async () => {
    const pkg = join(box.project, "packages", "app");
    await writeTree(box.project, {
      ".opencode/rules/root.md": "R",
      "packages/.opencode/rules/middle.md": "M",
      "packages/app/.opencode/rules/app.md": "A",
      "packages/other/.opencode/rules/other.md": "O",
    });
    const { rules } = await discover({ directory: pkg, worktree: box.project });
    expect(rules.map((r) => [r.name, r.displayPath])).toEqual([
      ["root", ".opencode/rules/root.md"],
      ["middle", "packages/.opencode/rules/middle.md"],
      ["app", "packages/app/.opencode/rules/app.md"],
    ]);
  });

  test("a symlinked rule file and a symlinked rules sub-folder inside the repository are followed", async () => {
    const shared = join(await realpath(box.project), "shared");
    await writeTree(shared, { "team/style.md": "Team style.", "single.md": "Single." });
    await writeTree(box.projectDir, { "own.md": "Own." });
    await symlink(join(shared, "team"), join(box.projectDir, "team"));
    await symlink(join(shared, "single.md"), join(box.projectDir, "linked.md"));
    const { rules, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(rules.map((r) => [r.name, r.content])).toEqual([
      ["linked", "Single."],
      ["own", "Own."],
      ["team/style", "Team style."],
    ]);
  });

  test("a symlink loop gives a warning and the rules still load", async () => {
    await writeTree(box.projectDir, { "a.md": "A", "sub/b.md": "B" });
    await symlink(box.projectDir, join(box.projectDir, "sub", "loop"));
    const { rules, warnings } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["a", "sub/b"]);
    expect(shown(warnings)).toEqual([
      { path: join(box.projectDir, "sub", "loop"), message: expect.stringContaining("symlink loop") },
    ]);
  }, 5000);

  test("a symlink to a FIFO is reported, never opened, and discovery finishes", async () => {
    const elsewhere = join(box.project, "elsewhere");
    await mkdir(elsewhere, { recursive: true });
    execFileSync("mkfifo", [join(elsewhere, "fifo")]);
    await writeTree(box.projectDir, GOOD);
    await symlink(join(elsewhere, "fifo"), join(box.projectDir, "pipe.md"));
    const readFile = vi.fn(nodeRuleFs.readFile);
    const { rules, warnings } = await discover({ fs: { ...nodeRuleFs, readFile } });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(shown(warnings)).toEqual([
      {
        path: join(box.projectDir, "pipe.md"),
        message: "is not a regular file (a device, FIFO or socket); never opened, skipped",
      },
    ]);
    expect(readFile.mock.calls.map((call) => call[0])).not.toContain(join(box.projectDir, "pipe.md"));
  }, 5000);

  test("a rules folder that is a file gives a warning; the global rules still load", async () => {
    await writeTree(box.globalDir, { "g.md": "G" });
    await writeTree(box.project, { ".opencode/rules": "not a folder" });
    const { rules, warnings } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["g"]);
    expect(shown(warnings)).toEqual([
      { path: box.projectDir, message: "rules folder is not a folder; it was ignored" },
    ]);
  });
});
