/** `verify --diff` and `--staged`: only what a change adds, read from a real git repository, as CI and a pre-commit hook run it. */
import { spawnSync } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, expect, test } from "vitest";
import { CLI, cleanEnv, type Sandbox } from "../support/cli.js";
import { GIT_ENV } from "../support/git-env.js";
import { FORBIDDING_RULES, useGitSandbox } from "../support/verify-fixtures.js";

const repo = useGitSandbox();
let box: Sandbox;
beforeEach(() => {
  box = repo.box();
});
const { git, verify, committed } = repo;

test("--diff: lines added since HEAD, staged or not, and untracked files whole; what was there, what is ignored and renames are not", async () => {
  await committed({
    ...FORBIDDING_RULES,
    ".gitignore": "src/gen.ts\n",
    "src/app.ts": "console.log(0);\nexport {};\n",
    "src/b.ts": "export const b = 1;\n",
    "src/old.ts": "console.log(9);\n",
  });
  await box.write({
    "src/app.ts": 'console.log(0);\nexport {};\nconsole.log("new");\n',
    "src/new.ts": "const a = 1;\nconsole.log(a);\n",
    "src/gen.ts": "console.log(1);\n",
  });
  await writeFile(join(box.project, "src/b.ts"), "export const b = 1;\nlet c: any;\n");
  git("add", "src/b.ts");
  git("mv", "src/old.ts", "src/moved.ts");

  const { stdout, code } = verify("--diff");
  expect(code).toBe(1);
  expect(stdout).toBe(
    [
      'error   src/app.ts:3: rule "no-console" forbids `console.log(`: console.log("new");',
      'warning src/b.ts:2: rule "no-any" forbids `/:\\s*any\\b/`: let c: any;',
      'error   src/new.ts:2: rule "no-console" forbids `console.log(`: console.log(a);',
      "",
      "2 errors, 1 warning in 3 of 3 files checked (lines added since HEAD, and untracked files)",
      "",
    ].join("\n"),
  );
  // Paths narrow the diff and the untracked files alike; `--` ends the options before them.
  expect(verify("--diff", "HEAD", "src/b.ts")).toMatchObject({
    code: 0,
    stdout: expect.stringMatching(/0 errors, 1 warning in 1 of 1 file checked/),
  });
  expect(verify("--diff", "--", "src/new.ts").stdout).toContain("src/new.ts:2:");
});

test("--staged: only what the index adds, which is what a commit records", async () => {
  await committed({ ...FORBIDDING_RULES, "src/app.ts": "export {};\n" });
  await box.write({ "src/app.ts": "export {};\nconsole.log(1);\n", "src/untracked.ts": "console.log(2);\n" });
  expect(verify("--staged")).toMatchObject({
    code: 0,
    stdout: "No rule broken in 0 files (lines staged since HEAD).\n",
  });
  git("add", "src/app.ts");
  const { stdout, code } = verify("--staged");
  expect(code).toBe(1);
  expect(stdout).toBe(
    'error   src/app.ts:2: rule "no-console" forbids `console.log(`: console.log(1);\n\n1 error, 0 warnings in 1 of 1 file checked (lines staged since HEAD)\n',
  );
});

test("--diff <rev> in CI: the lines a branch adds since another commit", async () => {
  await committed({ ...FORBIDDING_RULES, "src/app.ts": "export {};\n" });
  const base = git("rev-parse", "HEAD").trim();
  await committed({ "src/app.ts": "export {};\nconsole.log(1);\n" });
  expect(verify("--diff")).toMatchObject({
    code: 0,
    stdout: "No rule broken in 0 files (lines added since HEAD, and untracked files).\n",
  });
  expect(verify("--diff", base).stdout).toContain('error   src/app.ts:2: rule "no-console" forbids');
  expect(verify("--diff", base).code).toBe(1);
  const range = verify("--diff", `${base}...HEAD`);
  expect(range.code).toBe(1);
  expect(range.stdout).toContain(`(lines added in ${base}...HEAD)`);
});

test("a revision git does not know is wrong usage (exit 2), with how to name paths", async () => {
  await committed({ ...FORBIDDING_RULES, "src/app.ts": "export {};\n" });
  const { stdout, stderr, code } = verify("--diff", "src/app.ts");
  expect(code).toBe(2);
  expect(stdout).toBe("");
  expect(stderr).toContain(
    "opencode-rulebook: --diff src/app.ts: git knows no such revision (to check only some paths against HEAD, name them after it: --diff HEAD src/app.ts)",
  );
});

test("a repository without a commit yet: every line is added", async () => {
  await box.write({ ...FORBIDDING_RULES, "src/app.ts": "console.log(1);\n" });
  expect(verify("--diff").stdout).toContain("src/app.ts:1:");
  expect(verify("--staged").code).toBe(0);
  git("add", "-A");
  const staged = verify("--staged");
  expect(staged.code).toBe(1);
  expect(staged.stdout).toContain("(lines staged in a repository with no commit yet)");
});

test("whole files in a repository are git's files: what it ignores is left out, and so are the rule files", async () => {
  await committed({
    ".opencode/rules/no-debugger.md": "---\nforbid: ['debugger;']\n---\nNever leave `debugger;` in code.\n",
    ".gitignore": "build-output/\n",
    "build-output/bundle.js": "debugger;\n",
    "README.md": "Do not write debugger; anywhere.\n",
  });
  const { stdout, code } = verify();
  expect(code).toBe(1);
  expect(stdout).toBe(
    'error   README.md:1: rule "no-debugger" forbids `debugger;`: Do not write debugger; anywhere.\n\n1 error, 0 warnings in 1 of 2 files checked\n',
  );

  // Tracked and untracked files alike, in path order.
  await committed({ "src/app.ts": "debugger;\n" });
  await box.write({ "src/new.ts": "debugger;\n", "src/zed.ts": "debugger;\n" });
  expect(
    verify()
      .stdout.split("\n")
      .map((line) => line.split(":")[0]),
  ).toEqual([
    "error   README.md",
    "error   src/app.ts",
    "error   src/new.ts",
    "error   src/zed.ts",
    "",
    "4 errors, 0 warnings in 4 of 5 files checked",
    "",
  ]);
});

test("as a pre-commit hook, `verify --staged` stops a commit that adds a forbidden line, `git commit -a` included", async () => {
  await committed({ ...FORBIDDING_RULES, "src/app.ts": "export {};\n" });
  const hook = join(box.project, ".git", "hooks", "pre-commit");
  await writeFile(hook, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" verify --staged\n`);
  await chmod(hook, 0o755);
  await box.write({ "src/app.ts": "export {};\nconsole.log(1);\n" });
  const commit = spawnSync("git", ["commit", "-q", "-a", "-m", "adds a log"], {
    cwd: box.project,
    env: cleanEnv(box.home, box.xdg, GIT_ENV),
    encoding: "utf8",
  });
  expect(commit.status).not.toBe(0);
  expect(commit.stdout + commit.stderr).toContain(
    'error   src/app.ts:2: rule "no-console" forbids `console.log(`: console.log(1);',
  );
  expect(git("log", "--format=%s")).toBe("commit\n");

  await box.write({ "src/app.ts": "export const fine = 1;\n" });
  const clean = spawnSync("git", ["commit", "-q", "-a", "-m", "fine"], {
    cwd: box.project,
    env: cleanEnv(box.home, box.xdg, GIT_ENV),
    encoding: "utf8",
  });
  expect(clean.status).toBe(0);
});
