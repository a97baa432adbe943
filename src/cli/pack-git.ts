/**
 * Git packs fetched with the user's own `git`, for the command line only (the
 * plugin never touches the network): a bare repository per URL that fetches
 * go into, and a checkout per commit made from it (src/packs/git-cache.ts).
 *
 * Git runs without a shell, every argument an array element, hooks and the
 * `ext::` transport off (src/cli/pack-git-run.ts); what comes from a spec was
 * checked by parsePackSpec, and still goes after `--` (a URL) or
 * `--end-of-options` (a ref).
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { gitCheckoutFolder, gitMirrorFolder } from "../packs/git-cache.js";
import type { GitPackSpec } from "../packs/spec.js";
import { gitMessage, type GitResult } from "./git.js";
import { packGitEnv, runPackGit } from "./pack-git-run.js";

export type GitRun = (args: readonly string[], cwd?: string) => Promise<GitResult>;

/** Where the remote's default branch is fetched to. */
const DEFAULT_HEAD = "refs/rulebook/head";
const COMMIT = /^[0-9a-f]{40}$/;

/** Git for the packs, in the user's environment (src/cli/pack-git-run.ts). */
export function packGit(env: Record<string, string | undefined>): GitRun {
  const gitEnv = packGitEnv(env);
  return (args, cwd) => runPackGit(gitEnv, args, cwd);
}

/**
 * The commit `ref` (a branch, tag or commit; absent: the remote's default
 * branch) names now, fetched into the URL's mirror.
 */
export async function resolveGitRef(
  pack: GitPackSpec,
  cache: string,
  git: GitRun,
): Promise<{ commit: string } | { error: string }> {
  const mirror = await ensureMirror(pack.url, cache, git);
  if ("error" in mirror) return mirror;
  const fetched = await fetchRefs(mirror.folder, pack.url, git, pack.ref ? [] : [`+HEAD:${DEFAULT_HEAD}`]);
  if (fetched.code !== 0) return { error: `could not fetch ${pack.repo}: ${gitMessage(fetched)}` };
  for (const name of refNames(pack.ref)) {
    const commit = await commitIn(mirror.folder, name, git);
    if (commit) return { commit };
  }
  // A commit no branch or tag holds any more is fetched by itself (servers allow it over protocol v2).
  if (pack.ref && COMMIT.test(pack.ref) && (await fetchCommit(mirror.folder, pack.url, pack.ref, git)).code === 0) {
    const commit = await commitIn(mirror.folder, pack.ref, git);
    if (commit) return { commit };
  }
  return { error: `${pack.repo} has no branch, tag or commit ${JSON.stringify(pack.ref)}` };
}

/**
 * Where `ref` may be in the mirror, first found wins: a branch, a tag, then a commit
 * (only hex is looked up as one).
 */
function refNames(ref: string | undefined): string[] {
  if (ref === undefined) return [DEFAULT_HEAD];
  if (ref.startsWith("refs/heads/")) return [`refs/remotes/p/${ref.slice("refs/heads/".length)}`];
  if (ref.startsWith("refs/tags/")) return [ref];
  return [`refs/remotes/p/${ref}`, `refs/tags/${ref}`, ...(/^[0-9a-f]{7,40}$/.test(ref) ? [ref] : [])];
}

async function commitIn(mirror: string, name: string, git: GitRun): Promise<string | undefined> {
  const found = await git([
    `--git-dir=${mirror}`,
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${name}^{commit}`,
  ]);
  const commit = found.stdout.trim();
  return found.code === 0 && COMMIT.test(commit) ? commit : undefined;
}

/** Fetches every branch and tag (and `more` refspecs); those deleted upstream go. */
function fetchRefs(mirror: string, url: string, git: GitRun, more: readonly string[] = []): Promise<GitResult> {
  const refspecs = ["+refs/heads/*:refs/remotes/p/*", "+refs/tags/*:refs/tags/*", ...more];
  return git([`--git-dir=${mirror}`, "fetch", "--quiet", "--no-tags", "--force", "--prune", "--", url, ...refspecs]);
}

/** Fetches one commit, kept under a ref of its own so that git's clean-up never drops it. */
function fetchCommit(mirror: string, url: string, commit: string, git: GitRun): Promise<GitResult> {
  return git([
    `--git-dir=${mirror}`,
    "fetch",
    "--quiet",
    "--no-tags",
    "--force",
    "--",
    url,
    `+${commit}:refs/rulebook/commits/${commit}`,
  ]);
}

/** The URL's bare repository in the cache, made the first time. */
async function ensureMirror(url: string, cache: string, git: GitRun): Promise<{ folder: string } | { error: string }> {
  const folder = resolve(gitMirrorFolder(cache, url));
  if (await isFile(join(folder, "HEAD"))) return { folder };
  try {
    await mkdir(dirname(folder), { recursive: true });
  } catch (error) {
    return { error: `could not make the pack cache ${dirname(folder)}: ${(error as Error).message}` };
  }
  const made = await git(["init", "--bare", "--quiet", "--", folder]);
  return made.code === 0
    ? { folder }
    : { error: `could not make a repository in the pack cache (${folder}): ${gitMessage(made)}` };
}

/**
 * The checkout of `commit` in the cache, made when missing: the commit is
 * fetched into the mirror if it is not there, checked out into a temporary
 * folder beside, then renamed into place, so a half-written checkout is never
 * seen. It holds the commit's files only (no `.git`). A sub-folder spec reads
 * the same checkout, which must hold that folder.
 */
export async function ensureGitCheckout(
  pack: GitPackSpec,
  commit: string,
  cache: string,
  git: GitRun,
): Promise<{ folder: string } | { error: string }> {
  if (!COMMIT.test(commit))
    return { error: `${JSON.stringify(commit)} is not a commit (40 hex digits): run opencode-rulebook packs update` };
  const folder = resolve(gitCheckoutFolder(cache, pack.url, commit));
  if (!(await isFolder(folder))) {
    const made = await makeCheckout(pack, commit, cache, folder, git);
    if (made) return { error: made };
  }
  if (pack.subdir && !(await isFolder(join(folder, pack.subdir)))) {
    return { error: `${pack.repo} has no folder ${JSON.stringify(pack.subdir)} at commit ${commit.slice(0, 7)}` };
  }
  return { folder };
}

/** Makes the checkout; returns why it could not. */
async function makeCheckout(
  pack: GitPackSpec,
  commit: string,
  cache: string,
  folder: string,
  git: GitRun,
): Promise<string | undefined> {
  const mirror = await ensureMirror(pack.url, cache, git);
  if ("error" in mirror) return mirror.error;
  if (!(await commitIn(mirror.folder, commit, git))) {
    // The commit alone first (all a new machine needs), then every branch and tag for a server that refuses that.
    await fetchCommit(mirror.folder, pack.url, commit, git);
    if (!(await commitIn(mirror.folder, commit, git))) {
      const fetched = await fetchRefs(mirror.folder, pack.url, git);
      if (fetched.code !== 0) return `could not fetch ${pack.repo}: ${gitMessage(fetched)}`;
      const gone = !(await commitIn(mirror.folder, commit, git));
      if (gone)
        return `${pack.repo} has no commit ${commit} (was it force-pushed away?): run opencode-rulebook packs update`;
    }
  }
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const work = `${folder}.tmp-${suffix}`;
  // An index of its own beside the checkout: two checkouts at once never share one, and none is left inside.
  const gitDir = `${folder}.git-tmp-${suffix}`;
  try {
    const made = await git(["init", "--bare", "--quiet", "--", gitDir]);
    if (made.code !== 0) return `could not check out ${pack.repo} at ${commit.slice(0, 7)}: ${gitMessage(made)}`;
    await writeFile(join(gitDir, "objects", "info", "alternates"), `${join(mirror.folder, "objects")}\n`);
    await mkdir(work);
    // `commit` is 40 hex (checked above; git 2.39's checkout takes no --end-of-options).
    // Links are written as plain files (no link leads a rule read outside the pack),
    // line ends as committed (the same hash on every machine).
    const config = ["-c", "core.symlinks=false", "-c", "core.autocrlf=false"];
    const checkout = await git([
      `--git-dir=${gitDir}`,
      `--work-tree=${work}`,
      ...config,
      "checkout",
      "--quiet",
      "--force",
      commit,
      "--",
      ".",
    ]);
    if (checkout.code !== 0)
      return `could not check out ${pack.repo} at ${commit.slice(0, 7)}: ${gitMessage(checkout)}`;
    await rename(work, folder).catch(async (error: unknown) => {
      // Another run made the same checkout meanwhile: a commit's files are the same.
      if (!(await isFolder(folder))) throw error;
    });
    return undefined;
  } catch (error) {
    return `could not write ${pack.repo}'s checkout into the pack cache (${folder}): ${(error as Error).message}`;
  } finally {
    await rm(gitDir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  }
}

const isFolder = (path: string): Promise<boolean> =>
  stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );
const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (found) => found.isFile(),
    () => false,
  );
