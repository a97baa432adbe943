/**
 * `verify` cannot pass by mistake (issue 40, point 6): a named path that does
 * not exist, or that leads out of the repository through a symlink, is wrong
 * usage (exit 2) in every mode; a file found by listing that a linked folder
 * leads out of the repository is never read; names with control characters
 * cannot rewrite a CI log, and `--json` keeps them exact.
 */
import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { FORBIDDING_RULES, useGitSandbox } from "../support/verify-fixtures.js";

const repo = useGitSandbox();
let box: Sandbox;
beforeEach(() => {
  box = repo.box();
});
const { git, verify, committed } = repo;

/** A rule for every file, that the files outside the repository break. */
const NO_SECRET = { ".opencode/rules/no-secret.md": "---\nforbid: [SECRET]\n---\nNo secrets.\n" };

/** A folder beside the project, outside the repository, holding files that break the rules. */
async function outsideFolder(): Promise<string> {
  const outside = join(box.root, "outside");
  await mkdir(join(outside, "src"), { recursive: true });
  await writeFile(join(outside, "passwd"), "root:x:0:0 console.log(SECRET)\n");
  await writeFile(join(outside, "src", "b.ts"), "console.log(SECRET);\n");
  return outside;
}

describe("a named path that does not exist is wrong usage, in every mode", () => {
  beforeEach(() => committed({ ...FORBIDDING_RULES, "src/app.ts": "export {};\n" }));

  test.each([
    [["src/typo.ts"]],
    [["src/app.ts", "src/typo.ts"]],
    [["--diff", "HEAD", "src/typo.ts"]],
    [["--diff", "--", "src/typo.ts"]],
    [["--staged", "src/typo.ts"]],
    [["--diff", "HEAD", "src/app.ts/typo.ts"]],
    [["--json", "src/typo.ts"]],
  ])("verify %j: exit 2, the path named, nothing said to be clean", (args) => {
    const { stdout, stderr, code } = verify(...args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^opencode-rulebook: src\/(app\.ts\/)?typo\.ts does not exist\n$/);
  });

  test("a missing folder too; a path the change deletes is not a typo, and the rest still checks", async () => {
    expect(verify("src/nothing-here")).toMatchObject({
      code: 2,
      stderr: "opencode-rulebook: src/nothing-here does not exist\n",
    });
    await committed({ "src/old.ts": "export const old = 1;\n" });
    git("rm", "-q", "src/old.ts");
    await box.write({ "src/app.ts": "export {};\nconsole.log(1);\n" });
    git("add", "src/app.ts");
    // A pre-commit hook handing over the staged files' names names the deleted one too.
    const staged = verify("--staged", "src/old.ts", "src/app.ts");
    expect(staged.code).toBe(1);
    expect(staged.stdout).toContain('error   src/app.ts:2: rule "no-console" forbids `console.log(`: console.log(1);');
    expect(verify("--diff", "HEAD", "src/old.ts")).toMatchObject({
      code: 0,
      stdout: "No rule broken in 0 files (lines added since HEAD, and untracked files).\n",
    });
    // Whole files read what is on disk: there it does not exist.
    expect(verify("src/old.ts")).toMatchObject({ code: 2, stderr: "opencode-rulebook: src/old.ts does not exist\n" });
  });
});

describe("a named path that leads out of the repository is wrong usage", () => {
  test("etc/passwd with etc a committed symlink out: exit 2, named, nothing of the file read or printed", async () => {
    const outside = await outsideFolder();
    await committed({ ...FORBIDDING_RULES, ...NO_SECRET });
    await symlink(outside, join(box.project, "etc"));
    git("add", "etc");
    git("commit", "-q", "-m", "link");
    for (const args of [
      ["etc/passwd"],
      ["etc"],
      ["etc/src/b.ts"],
      ["etc/missing.ts"],
      ["--diff", "HEAD", "etc/passwd"],
      ["--staged", "etc/src"],
      ["--json", "etc/passwd"],
    ]) {
      const { stdout, stderr, code } = verify(...args);
      expect(code, args.join(" ")).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(
        /^opencode-rulebook: etc(\/[a-z./]+)? is outside the repository: it leads to \S+outside\S*, and the repository is \S+\n$/,
      );
      expect(stderr).not.toContain("SECRET");
    }
    // The whole project lists the link, not what it leads to.
    const whole = verify();
    expect(whole.code).toBe(0);
    expect(whole.stdout).not.toContain("SECRET");
  });

  test("a link inside the repository is followed: the file it leads to is checked, by its own name", async () => {
    await committed({ ...FORBIDDING_RULES, "src/app.ts": "console.log(1);\n" });
    await symlink("src", join(box.project, "lnk"));
    await symlink("src/app.ts", join(box.project, "app-link.ts"));
    for (const args of [["lnk/app.ts"], ["lnk"], ["app-link.ts"]]) {
      const { stdout, code } = verify(...args);
      expect(code, args.join(" ")).toBe(1);
      expect(stdout).toBe(
        'error   src/app.ts:1: rule "no-console" forbids `console.log(`: console.log(1);\n\n1 error, 0 warnings in 1 of 1 file checked\n',
      );
    }
  });
});

test("a listed file that a linked folder leads out of the repository is named, never read", async () => {
  const outside = await outsideFolder();
  await committed({
    ...FORBIDDING_RULES,
    ...NO_SECRET,
    "src/deep/src/b.ts": "export {};\n",
    "src/app.ts": "export {};\n",
  });
  // Git still lists src/deep/src/b.ts; on disk `src/deep` now leads out, to a b.ts that breaks the rules.
  await rename(join(box.project, "src", "deep"), join(box.root, "deep-moved"));
  await symlink(outside, join(box.project, "src", "deep"));
  const { stdout, code } = verify();
  expect(code).toBe(0);
  expect(stdout).not.toContain("SECRET");
  expect(stdout).toContain("note    src/deep/src/b.ts: not checked, outside the repository\n");
  const json = JSON.parse(verify("--json").stdout) as { skipped: unknown[]; findings: unknown[] };
  expect(json.findings).toEqual([]);
  expect(json.skipped).toEqual([{ file: "src/deep/src/b.ts", reason: "outside the repository", detail: null }]);
  // Untracked, a link out is listed as itself (git does not follow it), and passed over.
  await symlink(outside, join(box.project, "src", "out"));
  const diff = verify("--diff");
  expect(diff.code).toBe(0);
  expect(diff.stdout).not.toContain("SECRET");
});

describe("control characters in names are shown as ?, exact in --json", () => {
  // A newline, a carriage return, a tab, ESC (erase the line, move up), DEL and a C1 control (NEL).
  const NAME = "src/a\nb\r\tc\u001b[2K\u001b[1Ad\u007fe\u0085f.ts";
  const SHOWN = "src/a?b??c?[2K?[1Ad?e?f.ts";

  test.each([[[]], [["--diff"]], [["--staged"]]])("verify %j", async (args) => {
    await committed(FORBIDDING_RULES);
    await box.write({
      [NAME]: "const x = 1; console.log(x);\n",
      ".opencode/rules/evil\u001b[31m.md": "---\nforbid: [SHOUT]\n---\nNo shouting.\n",
      "src/ok.ts": "SHOUT \u001b[2K\n",
    });
    git("add", "-A");
    const { stdout, code } = verify(...args);
    expect(code).toBe(1);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character but the newline ending each line
    expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(stdout).toContain(
      `error   ${SHOWN}:1: rule "no-console" forbids \`console.log(\`: const x = 1; console.log(x);\n`,
    );
    // The rule's name is its file's, and the offending line is shown the same way.
    expect(stdout).toContain('error   src/ok.ts:1: rule "evil?[31m" forbids `SHOUT`: SHOUT ?[2K\n');

    const json = JSON.parse(verify(...args, "--json").stdout) as { findings: { file: string; rule: string }[] };
    expect(json.findings.map(({ file, rule }) => [file, rule])).toEqual([
      [NAME, "no-console"],
      ["src/ok.ts", "evil\u001b[31m"],
    ]);
  });

  test("a named path with control characters that does not exist is named with ? too", () => {
    const { stderr, code } = verify("src/typo\u001b[2K.ts");
    expect(code).toBe(2);
    expect(stderr).toBe("opencode-rulebook: src/typo?[2K.ts does not exist\n");
  });
});
