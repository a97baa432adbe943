/**
 * `branches:` (src/conditions/branches.ts): the branch read from `.git/HEAD`
 * as git writes it (a branch, a detached commit, a worktree's or submodule's
 * `gitdir:` file), the globs over it, the command line's `--branch`, and a
 * switch mid-session: the rules that now apply, and a notice for those that
 * no longer do.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { branches, branchOfHead, DETACHED } from "../../src/conditions/branches.js";
import { nodeRuleFs, smallFileReader } from "../../src/discover/fs.js";
import { composeFor } from "../../src/session/compose-for.js";
import { NEW_SESSION, type RuleSet, type SessionState } from "../../src/session/session.js";
import { step } from "../../src/session/step.js";
import { GIT_ENV } from "../support/git-env.js";
import { parsed } from "../support/parse.js";
import { makeRule } from "../support/rules.js";
import { tempDirs } from "../support/temp-folder.js";

const SHA1 = "3f2c1ab9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3";

describe("HEAD's text", () => {
  test("a branch, however deep its name; a commit id (SHA-1 or SHA-256) is the detached HEAD", () => {
    expect(branchOfHead("ref: refs/heads/main\n")).toBe("main");
    expect(branchOfHead("ref: refs/heads/release/1.2\r\n")).toBe("release/1.2");
    expect(branchOfHead(`${SHA1}\n`)).toBe(DETACHED);
    expect(branchOfHead(`${SHA1}${"0".repeat(24)}\n`)).toBe(DETACHED);
  });

  test("a name like an object's own keys is a branch like any other", () => {
    expect(branchOfHead("ref: refs/heads/__proto__\n")).toBe("__proto__");
    expect(branchOfHead("ref: refs/heads/constructor\n")).toBe("constructor");
    expect(branches.holds(["constructor"], "constructor")).toBe("constructor");
    expect(branches.holds(["release/*"], "__proto__")).toBeUndefined();
    expect(branchOfHead(`ref: refs/heads/${"a".repeat(255)}\n`)).toHaveLength(255);
  });

  test("anything else is no branch: a rule for some branches does not apply", () => {
    for (const text of [
      "",
      "garbage",
      "ref: refs/remotes/origin/main\n",
      "ref: refs/heads/\n",
      "ref: refs/heads/a..b\n",
      "ref: refs/heads/with space\n",
      "ref: refs/heads/evil\u001b[31m\n",
      "ref: refs/heads/x.lock\n",
      "ref: refs/heads/main\nref: refs/heads/other\n",
      `${SHA1.slice(1)}\n`,
      "ref: refs/heads/-rf\n",
      "ref: refs/heads/main\u202egnp.exe\n",
      "ref: refs/heads/ma\u200bin\n",
      "ref: refs/heads/a\u2028b\n",
      "ref: refs/heads/a\u00a0b\n",
      `ref: refs/heads/${"a".repeat(256)}\n`,
    ])
      expect(branchOfHead(text), JSON.stringify(text)).toBeUndefined();
  });
});

describe("reading the branch of a project", () => {
  const dirs = tempDirs();
  afterAll(dirs.cleanup);
  const tempFolder = dirs.make;
  const read = smallFileReader(nodeRuleFs);
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, { cwd, env: GIT_ENV, stdio: ["ignore", "pipe", "pipe"] })
      .toString()
      .trim();
  const repository = async () => {
    const root = await tempFolder("branches-");
    git(root, "init", "-q", "-b", "main");
    writeFileSync(join(root, "a.txt"), "a\n");
    git(root, "add", ".");
    git(root, "commit", "-qm", "first");
    return root;
  };

  test("the checked-out branch, after a switch, and a detached HEAD, as git writes them", async () => {
    const root = await repository();
    expect(await branches.observe(read, root)).toBe("main");
    git(root, "switch", "-qc", "release/1.2");
    expect(await branches.observe(read, root)).toBe("release/1.2");
    git(root, "switch", "-q", "--detach");
    expect(await branches.observe(read, root)).toBe(DETACHED);
  });

  test("a worktree: its `.git` file names the folder holding its own HEAD", async () => {
    const root = await repository();
    const worktree = join(await tempFolder("branches-wt-"), "wt");
    git(root, "worktree", "add", "-q", "-b", "feature/x", worktree);
    expect(await branches.observe(read, worktree)).toBe("feature/x");
    expect(await branches.observe(read, root)).toBe("main");
  });

  test("a relative `gitdir:` (a submodule's), read from the folder holding the file", async () => {
    const root = await tempFolder("branches-sub-");
    mkdirSync(join(root, "modules", "sub"), { recursive: true });
    writeFileSync(join(root, "modules", "sub", "HEAD"), "ref: refs/heads/develop\n");
    mkdirSync(join(root, "sub"));
    writeFileSync(join(root, "sub", ".git"), "gitdir: ../modules/sub\n");
    expect(await branches.observe(read, join(root, "sub"))).toBe("develop");
  });

  test("outside a repository, or a HEAD that is a FIFO or too large: not known, and nothing waits", async () => {
    expect(await branches.observe(read, await tempFolder("branches-none-"))).toBeUndefined();
    const fifo = await tempFolder("branches-fifo-");
    mkdirSync(join(fifo, ".git"));
    execFileSync("mkfifo", [join(fifo, ".git", "HEAD")]);
    expect(await branches.observe(read, fifo)).toBeUndefined();
    // A HEAD that is a symbolic link to a device (a hostile repository's): not a regular file, never read.
    const device = await tempFolder("branches-device-");
    mkdirSync(join(device, ".git"));
    symlinkSync("/dev/zero", join(device, ".git", "HEAD"));
    expect(await branches.observe(read, device)).toBeUndefined();
    // A `.git` file naming a folder whose HEAD is a link to a file outside: only a branch-like line would be taken.
    const outside = await tempFolder("branches-outside-");
    writeFileSync(join(outside, "secret.txt"), "password=hunter2\n");
    mkdirSync(join(outside, "linked"));
    symlinkSync(join(outside, "secret.txt"), join(outside, "linked", "HEAD"));
    writeFileSync(join(outside, ".git"), `gitdir: ${join(outside, "linked")}\n`);
    expect(await branches.observe(read, outside)).toBeUndefined();
    const large = await tempFolder("branches-large-");
    mkdirSync(join(large, ".git"));
    writeFileSync(join(large, ".git", "HEAD"), `ref: refs/heads/${"a".repeat(10_000)}\n`);
    expect(await branches.observe(read, large)).toBeUndefined();
  });
});

describe("a rule's branches", () => {
  const names = (text: string) => parsed(`---\nbranches: ${text}\n---\nBody`).rule?.conditions.branches;

  test("read as names or globs; `*` stays within one part, `**` crosses them; case counts", () => {
    const globs = ["release/*", "main", "hotfix/**"];
    expect(names('["release/*", "main", "hotfix/**"]')).toEqual(globs);
    expect(branches.holds(globs, "release/1.2")).toBe("release/*");
    expect(branches.holds(globs, "release/1.2/rc")).toBeUndefined();
    expect(branches.holds(globs, "hotfix/a/b")).toBe("hotfix/**");
    expect(branches.holds(globs, "main")).toBe("main");
    expect(branches.holds(globs, "Main")).toBeUndefined();
    expect(branches.holds(globs, undefined)).toBeUndefined();
  });

  test("a detached HEAD matches no glob but HEAD itself", () => {
    expect(branches.holds(["*", "**"], DETACHED)).toBeUndefined();
    expect(branches.holds(["main", "HEAD"], DETACHED)).toBe("HEAD");
  });

  test("a glob that cannot be used is said, and matches no branch", () => {
    const read = parsed("---\nbranches: ['release/[z-a]', main]\n---\nBody");
    expect(read.warnings.map(({ code }) => code)).toEqual(["glob-unusable"]);
    expect(read.rule?.conditions.branches).toEqual(["release/[z-a]", "main"]);
    expect(branches.holds(["release/[z-a]"], "release/x")).toBeUndefined();
  });

  test("--branch: a name git would take, or HEAD", () => {
    expect(branches.option.parse(" release/1.2 ")).toEqual({ fact: "release/1.2" });
    expect(branches.option.parse("HEAD")).toEqual({ fact: "HEAD" });
    expect(branches.option.parse("a b")).toHaveProperty("problem");
    expect(branches.option.parse("")).toHaveProperty("problem");
    expect(branches.option.parse("-x")).toHaveProperty("problem");
  });
});

describe("a switch of branch mid-session (step and compose)", () => {
  const release = makeRule({ name: "release-notes", branches: ["release/*"] });
  const style = makeRule({ name: "style" });
  const rules: RuleSet = {
    list: [style, release],
    byName: new Map([style, release].map((rule) => [rule.name, rule])),
    names: new Set([style.name, release.name]),
    warnings: 0,
  };
  const observed = (state: SessionState, branch: string) =>
    step(state, { type: "facts-observed", facts: { branch } }).state;
  const included = (state: SessionState) =>
    composeFor(state, rules).composed?.included.map(({ rule }) => rule.name) ?? [];

  test("the same branch read again changes nothing; another is the session's new fact", () => {
    const onMain = observed(NEW_SESSION, "main");
    expect(onMain.observed).toEqual({ branch: "main" });
    expect(observed(onMain, "main")).toBe(onMain);
    expect(observed(onMain, "release/1.2").observed).toEqual({ branch: "release/1.2" });
  });

  test("on main the release rule is not given; after the switch it is, marked for its branch", () => {
    expect(included(observed(NEW_SESSION, "main"))).toEqual(["style"]);
    const composed = composeFor(observed(NEW_SESSION, "release/1.2"), rules).composed;
    expect(composed?.included.map(({ rule }) => rule.name)).toEqual(["style", "release-notes"]);
    expect(composed?.text).toContain('for="branch release/*"');
  });

  test("switched back, a rule the window holds is said to be out of effect, and in effect again after", () => {
    const held: SessionState = {
      ...observed(NEW_SESSION, "release/1.2"),
      window: { ...NEW_SESSION.window, delivered: new Map([style, release].map((rule) => [rule.name, rule])) },
    };
    const back = composeFor(observed(held, "main"), rules);
    expect(back.composed?.paused).toEqual(["release-notes"]);
    expect(back.composed?.text).toMatch(/Not in effect while you work as [^\n]*branch main[^\n]*: release-notes/);
    expect(back.composed?.text).not.toContain('<rule name="release-notes"');
  });
});
