import { execFileSync } from "node:child_process";
import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { DEFAULT_MAX_RULE_BYTES, discoverRules, type DiscoveryContext } from "../../src/sources/discover.js";
import { nodeRuleFs, type RuleFs } from "../../src/sources/fs.js";
import { nativeSource } from "../../src/sources/native.js";
import type { RuleSource } from "../../src/sources/source.js";
import { tempDirs, writeTree } from "./helpers.js";

const dirs = tempDirs();
let home: string;
let project: string;
let globalDir: string;
let projectDir: string;

beforeEach(async () => {
  home = await realpath(await dirs.make("rulebook-home-"));
  project = await realpath(await dirs.make("rulebook-project-"));
  globalDir = join(home, ".config", "opencode", "rules");
  projectDir = join(project, ".opencode", "rules");
});
afterEach(() => dirs.cleanup());

function context(overrides: Partial<DiscoveryContext> = {}): DiscoveryContext {
  return { env: {}, home, directory: project, worktree: project, fs: nodeRuleFs, maxRuleBytes: DEFAULT_MAX_RULE_BYTES, ...overrides };
}
const discover = (overrides: Partial<DiscoveryContext> = {}, sources: RuleSource[] = [nativeSource]) => discoverRules(context(overrides), sources);

const GOOD = { "good.md": "A good rule.", "zz-last.mdc": "Last good rule." };

describe("discoverRules: the spec's rule file formats", () => {
  test("Loading a standard markdown rule: my-rule.md is loaded as `my-rule`", async () => {
    await writeTree(projectDir, { "my-rule.md": "Use tabs." });
    const { rules, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({ name: "my-rule", scope: "project", source: "native", content: "Use tabs.", path: join(projectDir, "my-rule.md"), displayPath: ".opencode/rules/my-rule.md" });
  });

  test("Loading a markdown with metadata rule: my-rule.mdc with globs", async () => {
    await writeTree(projectDir, { "my-rule.mdc": '---\nglobs:\n  - "src/components/**/*.ts"\n---\n\nThis is a rule for TypeScript components.\n' });
    const { rules } = await discover();
    expect(rules).toEqual([expect.objectContaining({ name: "my-rule", globs: ["src/components/**/*.ts"], content: "This is a rule for TypeScript components." })]);
  });

  test("Loading a rule with no metadata: another-rule.mdc has no conditions", async () => {
    await writeTree(projectDir, { "another-rule.mdc": "This rule should always apply.\n" });
    const { rules } = await discover();
    expect(rules).toEqual([expect.objectContaining({ name: "another-rule", globs: [], alwaysApply: undefined, content: "This rule should always apply." })]);
  });

  test("sub-folders give names like `sub/name`", async () => {
    await writeTree(projectDir, { "sub/name.md": "x", "sub/deeper/n2.mdc": "y" });
    expect((await discover()).rules.map((r) => r.name)).toEqual(["sub/deeper/n2", "sub/name"]);
  });

  test("hidden files/folders and other extensions are not rules", async () => {
    await writeTree(projectDir, { ".draft.md": "x", ".wip/a.md": "x", "notes.txt": "x", "keep.md": "k" });
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
    await writeTree(globalDir, { "global-rule.md": "G", "another-rule.mdc": "A" });
    await writeTree(projectDir, { "project-rule.md": "P" });
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
    const xdg = await realpath(await dirs.make("rulebook-xdg-"));
    await writeTree(join(xdg, "opencode", "rules"), { "from-xdg.md": "X" });
    await writeTree(globalDir, { "from-home.md": "H" });
    expect((await discover({ env: { XDG_CONFIG_HOME: xdg } })).rules.map((r) => r.name)).toEqual(["from-xdg"]);
  });

  test("OPENCODE_CONFIG_DIR wins over XDG_CONFIG_HOME", async () => {
    const oc = await realpath(await dirs.make("rulebook-oc-"));
    const xdg = await realpath(await dirs.make("rulebook-xdg-"));
    await writeTree(join(oc, "rules"), { "from-oc.md": "O" });
    await writeTree(join(xdg, "opencode", "rules"), { "from-xdg.md": "X" });
    expect((await discover({ env: { OPENCODE_CONFIG_DIR: oc, XDG_CONFIG_HOME: xdg } })).rules.map((r) => r.name)).toEqual(["from-oc"]);
  });

  test("monorepo: every .opencode/rules from the worktree down to the directory, nearest last", async () => {
    const pkg = join(project, "packages", "app");
    await writeTree(project, {
      ".opencode/rules/root.md": "R",
      "packages/.opencode/rules/middle.md": "M",
      "packages/app/.opencode/rules/app.md": "A",
      "packages/other/.opencode/rules/other.md": "O",
    });
    const { rules } = await discover({ directory: pkg, worktree: project });
    expect(rules.map((r) => [r.name, r.displayPath])).toEqual([
      ["root", ".opencode/rules/root.md"],
      ["middle", "packages/.opencode/rules/middle.md"],
      ["app", "packages/app/.opencode/rules/app.md"],
    ]);
  });

  test("a symlinked rule file and a symlinked rules sub-folder inside the repository are followed", async () => {
    const shared = join(await realpath(project), "shared");
    await writeTree(shared, { "team/style.md": "Team style.", "single.md": "Single." });
    await writeTree(projectDir, { "own.md": "Own." });
    await symlink(join(shared, "team"), join(projectDir, "team"));
    await symlink(join(shared, "single.md"), join(projectDir, "linked.md"));
    const { rules, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(rules.map((r) => [r.name, r.content])).toEqual([
      ["linked", "Single."],
      ["own", "Own."],
      ["team/style", "Team style."],
    ]);
  });

  test("a symlink loop gives a warning and the rules still load", async () => {
    await writeTree(projectDir, { "a.md": "A", "sub/b.md": "B" });
    await symlink(projectDir, join(projectDir, "sub", "loop"));
    const { rules, warnings } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["a", "sub/b"]);
    expect(warnings).toEqual([{ path: join(projectDir, "sub", "loop"), message: expect.stringContaining("symlink loop") }]);
  }, 5000);

  test("a symlink to a FIFO is reported, never opened, and discovery finishes", async () => {
    const elsewhere = join(project, "elsewhere");
    await mkdir(elsewhere, { recursive: true });
    execFileSync("mkfifo", [join(elsewhere, "fifo")]);
    await writeTree(projectDir, GOOD);
    await symlink(join(elsewhere, "fifo"), join(projectDir, "pipe.md"));
    const readFile = vi.fn(nodeRuleFs.readFile);
    const { rules, warnings } = await discover({ fs: { ...nodeRuleFs, readFile } });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings).toEqual([{ path: join(projectDir, "pipe.md"), message: "is not a regular file (a device, FIFO or socket); never opened, skipped" }]);
    expect(readFile.mock.calls.map((call) => call[0])).not.toContain(join(projectDir, "pipe.md"));
  }, 5000);

  test("a rules folder that is a file gives a warning; the global rules still load", async () => {
    await writeTree(globalDir, { "g.md": "G" });
    await writeTree(project, { ".opencode/rules": "not a folder" });
    const { rules, warnings } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["g"]);
    expect(warnings).toEqual([{ path: projectDir, message: "rules folder is not a folder; it was ignored" }]);
  });
});

describe("discoverRules: files that cannot be read", () => {
  test("permission denied reading one rule: a warning, the other rules load", async () => {
    await writeTree(projectDir, { ...GOOD, "secret.md": "S" });
    const secret = join(projectDir, "secret.md");
    const fs: RuleFs = {
      ...nodeRuleFs,
      readFile: async (path, max) => {
        if (path === secret) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
        return nodeRuleFs.readFile(path, max);
      },
    };
    const { rules, warnings } = await discover({ fs });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings).toEqual([{ path: secret, message: 'cannot be read (EACCES); rule "secret" skipped' }]);
  });

  test("permission denied listing a sub-folder: a warning, the other rules load", async () => {
    await writeTree(projectDir, { ...GOOD, "locked/x.md": "X" });
    const locked = join(projectDir, "locked");
    const fs: RuleFs = {
      ...nodeRuleFs,
      readdir: async (path) => {
        if (path === locked) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
        return nodeRuleFs.readdir(path);
      },
    };
    const { rules, warnings } = await discover({ fs });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings).toEqual([{ path: locked, message: "folder cannot be read (EACCES); its rules were not loaded" }]);
  });

  test("a file over maxRuleBytes is skipped with a warning without being read", async () => {
    await writeTree(projectDir, { ...GOOD, "huge.md": "x".repeat(2000) });
    const huge = join(projectDir, "huge.md");
    const readFile = vi.fn(nodeRuleFs.readFile);
    const { rules, warnings } = await discover({ fs: { ...nodeRuleFs, readFile }, maxRuleBytes: 1000 });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings).toEqual([{ path: huge, message: 'the file is 2000 bytes, over the 1000-byte limit per rule; rule "huge" skipped without being read' }]);
    expect(readFile.mock.calls.map((call) => call[0])).not.toContain(huge);
    expect(readFile).toHaveBeenCalledTimes(2);
  });

  test("a file of exactly maxRuleBytes is read", async () => {
    await writeTree(projectDir, { "edge.md": "x".repeat(100) });
    expect((await discover({ maxRuleBytes: 100 })).rules.map((r) => r.name)).toEqual(["edge"]);
  });

  test("a file that grew past the limit after the walk is skipped", async () => {
    await writeTree(projectDir, { ...GOOD, "grows.md": "small" });
    const grows = join(projectDir, "grows.md");
    const fs: RuleFs = {
      ...nodeRuleFs,
      readFile: async (path, max) => {
        if (path === grows) await writeFile(grows, "y".repeat(500));
        return nodeRuleFs.readFile(path, max);
      },
    };
    const { rules, warnings } = await discover({ fs, maxRuleBytes: 100 });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings).toEqual([{ path: grows, message: 'the file is over the 100-byte limit per rule; rule "grows" skipped' }]);
  });
});

describe("discoverRules: bad rule files warn and the other rules still load", () => {
  const cases: Array<[string, string | Uint8Array, string, number | undefined]> = [
    ["binary.md", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]), 'it is a binary file (contains NUL bytes); rule "binary" skipped', undefined],
    ["latin1.md", new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'it is not valid UTF-8 text; rule "latin1" skipped', undefined],
    ["empty.md", "", 'the file is empty; rule "empty" skipped', undefined],
    ["blank.md", "  \n\n\t\n", 'the file is empty; rule "blank" skipped', undefined],
    ["only-front.md", "---\nglobs: src/**\n---\n", 'the file has front matter but no rule text; rule "only-front" skipped', 4],
    ["broken.md", "---\ndescription: x\nglobs: a\n  oops: b\n---\nBody", 'front matter is not valid YAML (bad indentation of a mapping entry); rule "broken" skipped', 4],
    ["open.md", "---\nglobs: a\nBody", 'front matter opened with --- on line 1 is never closed by a --- line; rule "open" skipped', 1],
    ["js.md", "---js\nglobalThis.pwned = true\n---\nBody", 'front matter is marked "js"; only YAML front matter is read, and nothing in it was run; rule "js" skipped', 1],
    ["dup.md", "---\nglobs: a\nglobs: b\n---\nBody", 'front matter is not valid YAML (duplicated mapping key); rule "dup" skipped', 3],
    ["bad-always.md", "---\nalwaysApply: maybe\n---\nBody", 'front matter key "alwaysApply" should be true or false, found string "maybe"; rule "bad-always" skipped', 2],
  ];

  test.each(cases)("%s", async (file, content, message, line) => {
    await writeTree(projectDir, { ...GOOD, [file]: content });
    const { rules, warnings, files } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings).toEqual([{ path: join(projectDir, file), line, message }]);
    expect(files.map((f) => f.relPath)).toContain(file);
    expect((globalThis as Record<string, unknown>).pwned).toBeUndefined();
  });

  test("CRLF, lone CR and BOM files load correctly next to each other", async () => {
    await writeTree(projectDir, {
      "crlf.md": "---\r\nglobs: src/**/*.ts\r\n---\r\nWindows rule.\r\nSecond line.\r\n",
      "cr.md": "---\rglobs: lib/**\r---\rOld Mac rule.\r",
      "bom.md": new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("---\ndescription: with BOM\nalwaysApply: true\n---\nBOM rule.")]),
    });
    const { rules, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(rules.map((r) => ({ name: r.name, content: r.content, globs: r.globs, description: r.description, alwaysApply: r.alwaysApply }))).toEqual([
      { name: "bom", content: "BOM rule.", globs: [], description: "with BOM", alwaysApply: true },
      { name: "cr", content: "Old Mac rule.", globs: ["lib/**"], description: undefined, alwaysApply: undefined },
      { name: "crlf", content: "Windows rule.\nSecond line.", globs: ["src/**/*.ts"], description: undefined, alwaysApply: undefined },
    ]);
  });

  test("many bad files at once: each gets its own warning and the good ones load", async () => {
    await writeTree(projectDir, { ...GOOD, ...Object.fromEntries(cases.map(([file, content]) => [file, content])) });
    const { rules, warnings } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings.map((w) => w.path).sort()).toEqual(cases.map(([file]) => join(projectDir, file)).sort());
  });

  test("enabled: false hides a rule without a warning", async () => {
    await writeTree(projectDir, { ...GOOD, "off.md": "---\nenabled: false\n---\nHidden." });
    const { rules, warnings } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings).toEqual([]);
  });

  test("many files (more than are read at once) all load, in order", async () => {
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`r${String(i).padStart(3, "0")}.md`, `Rule ${i}.`]));
    await writeTree(projectDir, many);
    const { rules } = await discover();
    expect(rules.map((r) => r.content)).toEqual(Array.from({ length: 80 }, (_, i) => `Rule ${i}.`));
  });
});
