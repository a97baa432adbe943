/**
 * Git packs fetched with real git (src/cli/pack-git.ts), from repositories
 * made in a temporary folder and named by `git+file://` specs: no network.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { UsageError } from "../../src/cli/context.js";
import { ensureGitCheckout, type GitRun, packGit, resolveGitRef } from "../../src/cli/pack-git.js";
import { gitCheckoutFolder } from "../../src/packs/git-cache.js";
import { type GitPackSpec, parsePackSpec } from "../../src/packs/spec.js";
import { GIT_ENV } from "../support/git-env.js";

const env = { ...process.env, ...GIT_ENV };

let root: string;
let upstream: string;
let cache: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: upstream, env, encoding: "utf8" }).trim();
const head = (name = "HEAD") => git("rev-parse", `${name}^{commit}`);
function commit(files: Record<string, string>, message = "change"): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(upstream, path)), { recursive: true });
    writeFileSync(join(upstream, path), text);
  }
  git("add", "-A");
  git("commit", "-q", "-m", message);
  return head();
}
const gitPack = (fragment = ""): GitPackSpec => {
  const parsed = parsePackSpec(`git+file://${upstream}${fragment}`);
  if ("error" in parsed || parsed.pack.kind !== "git") throw new Error(JSON.stringify(parsed));
  return parsed.pack;
};
/** The GitRun with every command it ran. */
function countingGit(): GitRun & { calls: string[][] } {
  const run = packGit(env);
  const calls: string[][] = [];
  const counted: GitRun = (args, cwd) => {
    calls.push([...args]);
    return run(args, cwd);
  };
  return Object.assign(counted, { calls });
}
const resolved = async (pack: GitPackSpec) => {
  const found = await resolveGitRef(pack, cache, packGit(env));
  if ("error" in found) throw new Error(found.error);
  return found.commit;
};
const checkout = async (pack: GitPackSpec, at: string, run: GitRun = packGit(env)) => {
  const made = await ensureGitCheckout(pack, at, cache, run);
  if ("error" in made) throw new Error(made.error);
  return made.folder;
};

let first: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "rulebook-pack-git-"));
  upstream = join(root, "upstream");
  cache = join(root, "cache");
  mkdirSync(upstream);
  git("init", "-q", "-b", "main");
  first = commit({ "style.md": "Use tabs.\n", "frontend/react.md": "Hooks first.\n" }, "first");
  git("tag", "v1");
  git("tag", "-a", "-m", "annotated", "v1-annotated");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("resolveGitRef", () => {
  test("a branch, a tag, an annotated tag, a commit, and the default branch", async () => {
    const second = commit({ "style.md": "Use spaces.\n" });
    git("checkout", "-q", "-b", "dev");
    const onDev = commit({ "dev.md": "dev\n" });
    git("checkout", "-q", "main");
    expect(await resolved(gitPack("#main"))).toBe(second);
    expect(await resolved(gitPack("#refs/heads/main"))).toBe(second);
    expect(await resolved(gitPack("#dev"))).toBe(onDev);
    expect(await resolved(gitPack("#v1"))).toBe(first);
    expect(await resolved(gitPack("#refs/tags/v1"))).toBe(first);
    expect(await resolved(gitPack("#v1-annotated"))).toBe(first);
    expect(await resolved(gitPack(`#${first}`))).toBe(first);
    expect(await resolved(gitPack(`#${first.slice(0, 10)}`))).toBe(first);
    expect(await resolved(gitPack())).toBe(second);
    expect(await resolved(gitPack("#:frontend"))).toBe(second);
  });

  test("the default branch is the remote's HEAD, whatever its name", async () => {
    git("checkout", "-q", "-b", "trunk");
    const onTrunk = commit({ "trunk.md": "t\n" });
    expect(await resolved(gitPack())).toBe(onTrunk);
  });

  test("a new upstream commit changes what a branch resolves to, not an existing checkout", async () => {
    const folder = await checkout(gitPack("#main"), await resolved(gitPack("#main")));
    const second = commit({ "style.md": "Use spaces.\n", "new.md": "new\n" });
    expect(await resolved(gitPack("#main"))).toBe(second);
    expect(readFileSync(join(folder, "style.md"), "utf8")).toBe("Use tabs.\n");
    expect(existsSync(join(folder, "new.md"))).toBe(false);
  });

  test("a branch deleted upstream no longer resolves; a commit no branch holds still does, fetched by itself", async () => {
    git("checkout", "-q", "-b", "gone");
    const lost = commit({ "lost.md": "lost\n" });
    git("checkout", "-q", "main");
    expect(await resolved(gitPack("#gone"))).toBe(lost);
    git("branch", "-q", "-D", "gone");
    expect(await resolveGitRef(gitPack("#gone"), cache, packGit(env))).toEqual({
      error: `git+file://${upstream} has no branch, tag or commit "gone"`,
    });
    rmSync(cache, { recursive: true });
    expect(await resolved(gitPack(`#${lost}`))).toBe(lost);
  });

  test("an unknown ref is a clear error", async () => {
    expect(await resolveGitRef(gitPack("#nope"), cache, packGit(env))).toEqual({
      error: `git+file://${upstream} has no branch, tag or commit "nope"`,
    });
    expect(await resolveGitRef(gitPack(`#${"0".repeat(40)}`), cache, packGit(env))).toEqual({
      error: `git+file://${upstream} has no branch, tag or commit "${"0".repeat(40)}"`,
    });
  });

  test("a missing repository is a clear error with git's own reason", async () => {
    const missing = parsePackSpec(`git+file://${join(root, "nope")}#main`);
    if (!("pack" in missing) || missing.pack.kind !== "git") throw new Error("not a git spec");
    const found = await resolveGitRef(missing.pack, cache, packGit(env));
    expect(found).toEqual({
      error: expect.stringMatching(/^could not fetch git\+file:\/\/.*\/nope: .*does not appear to be a git repository/),
    });
  });

  test("git that is not on the PATH is a UsageError", async () => {
    await expect(
      resolveGitRef(gitPack("#main"), cache, packGit({ ...env, PATH: join(root, "no-bin") })),
    ).rejects.toThrow(UsageError);
    await expect(
      resolveGitRef(gitPack("#main"), cache, packGit({ ...env, PATH: join(root, "no-bin") })),
    ).rejects.toThrow(/git was not found/);
  });
});

describe("ensureGitCheckout", () => {
  test("writes the commit's files, without .git, in the cache's folder for that commit", async () => {
    const folder = await checkout(gitPack("#v1"), first);
    expect(folder).toBe(gitCheckoutFolder(cache, gitPack().url, first));
    expect(readdirSync(folder).sort()).toEqual(["frontend", "style.md"]);
    expect(readFileSync(join(folder, "frontend/react.md"), "utf8")).toBe("Hooks first.\n");
    // Nothing left beside it: no temporary folder, no index.
    expect(readdirSync(dirname(folder)).sort()).toEqual([first, "repo.git"]);
  });

  test("a sub-folder spec reads through the same checkout; a second call runs no git", async () => {
    const folder = await checkout(gitPack("#v1"), first);
    const counting = countingGit();
    expect(await checkout(gitPack("#v1:frontend"), first, counting)).toBe(folder);
    expect(await checkout(gitPack("#v1"), first, counting)).toBe(folder);
    expect(counting.calls).toEqual([]);
  });

  test("a sub-folder the commit does not hold is a clear error", async () => {
    expect(await ensureGitCheckout(gitPack("#v1:backend"), first, cache, packGit(env))).toEqual({
      error: `git+file://${upstream} has no folder "backend" at commit ${first.slice(0, 7)}`,
    });
  });

  test("on a fresh cache, the commit is fetched first (a lock brought to a new machine)", async () => {
    const second = commit({ "style.md": "Use spaces.\n" });
    const folder = await checkout(gitPack("#main"), first);
    expect(readFileSync(join(folder, "style.md"), "utf8")).toBe("Use tabs.\n");
    expect(readFileSync(join(await checkout(gitPack("#main"), second), "style.md"), "utf8")).toBe("Use spaces.\n");
  });

  test("a link in the repository is written as a plain file holding its target", async () => {
    symlinkSync("/etc/passwd", join(upstream, "passwd.md"));
    const linked = commit({});
    const folder = await checkout(gitPack(), linked);
    expect(lstatSync(join(folder, "passwd.md")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(folder, "passwd.md"), "utf8")).toBe("/etc/passwd");
  });

  test("a GIT_INDEX_FILE from a hook is not used", async () => {
    const index = join(root, "project-index");
    await ensureGitCheckout(
      gitPack(),
      first,
      cache,
      packGit({ ...env, GIT_INDEX_FILE: index, GIT_DIR: join(root, "elsewhere") }),
    );
    expect(existsSync(join(gitCheckoutFolder(cache, gitPack().url, first), "style.md"))).toBe(true);
    expect(existsSync(index)).toBe(false);
  });

  test("a commit the repository does not have, and one that is not a commit, are clear errors", async () => {
    const none = "1".repeat(40);
    expect(await ensureGitCheckout(gitPack(), none, cache, packGit(env))).toEqual({
      error: `git+file://${upstream} has no commit ${none} (was it force-pushed away?): run opencode-rulebook packs update`,
    });
    expect(await ensureGitCheckout(gitPack(), "../../etc", cache, packGit(env))).toEqual({
      error: expect.stringMatching(/is not a commit/),
    });
  });
});
