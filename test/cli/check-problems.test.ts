/** `check`'s pieces: severity taken from the warning's value, and the project's files listed by the shared walker. */
import { realpath, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { listProjectFiles } from "../../src/cli/check.js";
import { findProblems } from "../../src/cli/check-problems.js";
import type { ProjectContext } from "../../src/cli/context.js";
import { DEFAULT_OPTIONS } from "../../src/options.js";
import { ruleWarning } from "../../src/rule/warnings.js";
import type { LoadedRules } from "../../src/formats/load.js";
import { makeRule } from "../support/rules.js";
import { tempDirs, writeTree } from "../support/temp-folder.js";

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const project = (overrides: Partial<ProjectContext> = {}) =>
  ({
    projectRoot: "/p",
    home: "/home/ada",
    options: DEFAULT_OPTIONS,
    configWarnings: [],
    ...overrides,
  }) as ProjectContext;
const loaded = (overrides: Partial<LoadedRules> = {}): LoadedRules => ({
  rules: [],
  shadowed: [],
  warnings: [],
  files: [],
  folders: [],
  references: [],
  ...overrides,
});

describe("findProblems", () => {
  test("each problem's severity is its warning's, whatever the words say", () => {
    const problems = findProblems(
      project({
        configWarnings: [
          ruleWarning("/p/opencode.json", {
            code: "plugin-options",
            problem: 'option "sources" names unknown sources "skipped"; they were ignored',
          }),
        ],
      }),
      loaded({
        warnings: [
          ruleWarning("/p/.opencode/rules/a.md", {
            code: "yaml-invalid",
            rule: "a",
            reason: "duplicated mapping key",
            line: 3,
          }),
          ruleWarning("/p/.opencode/rules/b.md", {
            code: "glob-unusable",
            glob: "skipped/[z-a]",
            problem: "the character range z-a is reversed",
          }),
        ],
      }),
      { files: [], complete: true },
    );
    expect(problems).toEqual([
      {
        severity: "warning",
        path: "/p/opencode.json",
        line: undefined,
        message: 'plugin options: option "sources" names unknown sources "skipped"; they were ignored',
      },
      {
        severity: "error",
        path: "/p/.opencode/rules/a.md",
        line: 3,
        message: 'front matter is not valid YAML (duplicated mapping key); rule "a" skipped',
      },
      {
        severity: "warning",
        path: "/p/.opencode/rules/b.md",
        line: undefined,
        message: 'glob "skipped/[z-a]" cannot be used (the character range z-a is reversed); this glob is ignored',
      },
    ]);
  });

  test("a glob that can never match a file inside the project is named, with why and what to write; one that may match is not", () => {
    const rule = makeRule({
      name: "never",
      globs: [
        "/abs/src/**",
        "~/notes/*.md",
        "../shared/**",
        "src/components/",
        "src\\**\\*.ts",
        "C:\\work\\*.cs",
        "app/\\[id\\].tsx",
        "!/tmp/**",
        "src/**",
        "./lib/*.ts",
      ],
    });
    const problems = findProblems(project(), loaded({ rules: [rule] }), {
      files: ["src/a.ts", "lib/b.ts", "app/[id].tsx"],
      complete: true,
    });
    expect(problems.map((problem) => problem.message)).toEqual([
      'glob "/abs/src/**" can never match a file in the project: it is an absolute path, and project files are matched by their path from the project root (write "abs/src/**" for a folder at the root)',
      'glob "~/notes/*.md" can never match a file in the project: it starts at the home folder; globs are relative to the project root',
      'glob "../shared/**" can never match a file in the project: it starts with "..": above the project root, which globs are relative to',
      'glob "src/components/" can never match a file in the project: it ends with "/", and a file\'s path never does (write "src/components/**" for everything in that folder)',
      'glob "src\\**\\*.ts" can never match a file in the project: it separates folders with "\\"; write "src/**/*.ts"',
      'glob "C:\\work\\*.cs" can never match a file in the project: it is an absolute path, and project files are matched by their path from the project root',
    ]);
  });

  test("what looks like a link inside code is code: only a link in the prose is reported missing", () => {
    const rule = makeRule({
      name: "code",
      content:
        "Call `handlers[name](arr.length)` once.\n\n```js\nconst f = table[key](opts.value);\n```\n\nSee [the guide](docs/gone.md).",
    });
    const problems = findProblems(project(), loaded({ rules: [rule] }), { files: [], complete: true });
    expect(problems.map((problem) => problem.message)).toEqual(["links to docs/gone.md, which does not exist"]);
  });

  test("unknown keys are reported once: by discovery's warning, found by its code and keys", () => {
    const rule = makeRule({ name: "typo", unknownKeys: ["glob", "author"] });
    const problems = findProblems(
      project(),
      loaded({ rules: [rule], warnings: [ruleWarning(rule.path, { code: "unknown-keys", keys: ["glob"] })] }),
      {
        files: [],
        complete: true,
      },
    );
    expect(problems.map((problem) => problem.message)).toEqual([
      'front matter key "glob" is not used by opencode-rulebook; kept and ignored',
      'front matter key "author" not understood; ignored',
    ]);
  });
});

describe("listProjectFiles", () => {
  test("every file, hidden ones and those in hidden folders too, outside version control, dependency, build and cache folders; symlinks listed, not followed", async () => {
    const root = await realpath(await dirs.make("rulebook-files-"));
    const elsewhere = await realpath(await dirs.make("rulebook-elsewhere-"));
    await writeTree(elsewhere, { "far.ts": "x" });
    await writeTree(root, {
      "src/app.ts": "x",
      "src/db/user.ts": "x",
      ".eslintrc": "x",
      ".git/config": "x",
      ".github/workflows/ci.yml": "x",
      ".cursor/rules/general.mdc": "x",
      ".venv/lib/site.py": "x",
      ".next/cache/page.js": "x",
      "node_modules/dep/index.js": "x",
      "dist/app.js": "x",
      "vendor/lib.go": "x",
    });
    await symlink(elsewhere, join(root, "linked"));
    const listed = await listProjectFiles(root);
    expect(listed.complete).toBe(true);
    expect([...listed.files].sort()).toEqual([
      ".cursor/rules/general.mdc",
      ".eslintrc",
      ".github/workflows/ci.yml",
      "linked",
      "src/app.ts",
      "src/db/user.ts",
    ]);
  });

  test("at the limit the list stops and says it is incomplete", async () => {
    const root = await realpath(await dirs.make("rulebook-files-"));
    await writeTree(root, { "a.ts": "", "b.ts": "", "sub/c.ts": "", "sub/d.ts": "" });
    expect(await listProjectFiles(root, 3)).toEqual({ files: ["a.ts", "b.ts", "sub/c.ts"], complete: false });
    expect(await listProjectFiles(root, 5)).toEqual({
      files: ["a.ts", "b.ts", "sub/c.ts", "sub/d.ts"],
      complete: true,
    });
  });

  test("a missing root is an empty, complete list", async () => {
    expect(await listProjectFiles(join(await dirs.make(), "nope"))).toEqual({ files: [], complete: true });
  });
});
