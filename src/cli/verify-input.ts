/**
 * What `verify` checks: each file with the lines that count as added, or why
 * it was left out. Whole files (every line counts): the project's files as
 * git lists them (tracked, and untracked ones it does not ignore), or as the
 * project walk finds them outside a repository. `--diff`/`--staged`: the
 * lines git says were added, and, against the working tree, untracked files
 * whole. Files are read one at a time, as the check asks for them.
 */
import type { Stats } from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import { join } from "node:path";
import { errorCode, errorReason, readAtMost } from "../discover/fs.js";
import { linesAdded } from "../enforce/added-lines.js";
import type { AddedLine } from "../enforce/proposed.js";
import { MAX_COMPARED_BYTES } from "../engine/check-call.js";
import { listProjectFiles, PROJECT_FILE_LIMIT } from "./check.js";
import { shownPath, UsageError, type ProjectContext } from "./context.js";
import { addedInDiff } from "./git-diff.js";
import { gitMessage, type Git, type GitResult } from "./git.js";
import { inside } from "../rule/trust.js";
import { doesNotExist, resolveNamed } from "./verify-paths.js";

/** A file read whole larger than this is not checked (the plugin's bound for a file a write replaces). */
const MAX_CHECKED_BYTES = MAX_COMPARED_BYTES;

type SkipReason = "binary" | "too large" | "unreadable" | "outside the repository";

/** A file to check (project-relative POSIX), or one that was not. */
export type Target =
  | { kind: "lines"; file: string; added: AddedLine[] }
  | { kind: "skipped"; file: string; reason: SkipReason; detail?: string };

export interface Targets {
  targets: AsyncIterable<Target>;
  /** What was compared, for the summary: `lines added since HEAD`; absent for whole files. */
  compared?: string;
  notes: string[];
}

interface DiffRequest {
  /** `--diff <rev>`: absent, HEAD. */
  rev?: string;
  staged: boolean;
}

/**
 * Every line of the named files (all the project's without names), each counting as added; a named path that does not
 * exist is wrong usage.
 */
export async function wholeFileTargets(project: ProjectContext, paths: readonly string[], git: Git): Promise<Targets> {
  const realRoot = await realpath(project.projectRoot);
  const files: string[] = [];
  const folders: string[] = [];
  for (const { named, real, kind } of await resolveNamed(project.projectRoot, realRoot, paths)) {
    if (kind === "missing") throw doesNotExist(named);
    (kind === "folder" ? folders : files).push(real);
  }
  const notes: string[] = [];
  if (paths.length === 0 || folders.length > 0) {
    const listed = await listedFiles(project, git, folders, notes);
    files.push(...listed.filter((file) => paths.length === 0 || folders.some((folder) => under(file, folder))));
  }
  return { targets: readEach([...new Set(files)].sort(), realRoot), notes };
}

/**
 * The lines added since `rev` (HEAD), staged and not, and untracked files whole; `staged`: only what the index adds.
 */
export async function diffTargets(
  project: ProjectContext,
  paths: readonly string[],
  request: DiffRequest,
  git: Git,
): Promise<Targets> {
  const inside = await git(["rev-parse", "--is-inside-work-tree"]);
  if (!isWorkTree(inside)) {
    const where = shownPath(project, project.directory) || ".";
    // Anything else is git's to say: a repository it will not read (`safe.directory`), a broken one.
    if (inside.code !== 0 && !/not a git repository/i.test(inside.stderr))
      throw new UsageError(`git cannot read the repository at ${where}: ${gitMessage(inside)}`);
    throw new UsageError(
      `${where} is not in a git repository: --diff and --staged read the changes git sees; without them, verify checks whole files`,
    );
  }
  const base = await diffBase(git, request.rev);
  const realRoot = await realpath(project.projectRoot);
  const named = await resolveNamed(project.projectRoot, realRoot, paths);
  const pathspecs = named.map(({ real }) => (real === "" ? "." : real));
  const diff = await git([
    "-c",
    "core.quotePath=false",
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--unified=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--relative",
    "--find-renames",
    "--ignore-submodules",
    ...(request.staged ? ["--cached"] : []),
    base.rev,
    "--",
    ...pathspecs,
  ]);
  if (diff.code !== 0) throw new UsageError(`git diff: ${gitMessage(diff)}`);
  const { files, binary, deleted } = addedInDiff(diff.stdout);
  // Against the working tree, a file git does not track yet is added whole; between two commits there is none.
  const withUntracked = !request.staged && !base.rev.includes("..");
  const untracked = withUntracked ? await gitFiles(git, ["--others", "--exclude-standard"], pathspecs) : [];
  // A path not on disk is a typo unless the change has it: deleted, staged and then removed, in another commit.
  const changed = [...files.map(({ path }) => path), ...binary, ...deleted, ...untracked];
  const unknown = named.find(({ kind, real }) => kind === "missing" && !changed.some((file) => under(file, real)));
  if (unknown) throw doesNotExist(unknown.named);
  async function* targets(): AsyncGenerator<Target> {
    for (const { path, added } of files) yield { kind: "lines", file: path, added };
    for (const file of binary) yield { kind: "skipped", file, reason: "binary" };
    yield* readEach(untracked, realRoot);
  }
  const what = request.staged ? "lines staged" : "lines added";
  return {
    targets: targets(),
    compared: `${what} ${base.since}${withUntracked ? ", and untracked files" : ""}`,
    notes: [],
  };
}

/**
 * The revision to compare with: as given, HEAD, or in a repository without a commit yet, the empty tree (everything is
 * added).
 */
async function diffBase(git: Git, rev: string | undefined): Promise<{ rev: string; since: string }> {
  if (rev !== undefined) {
    if (rev.startsWith("-") || rev.trim() === "")
      throw new UsageError(`--diff ${JSON.stringify(rev)}: give a revision, such as HEAD, main or origin/main`);
    // `a..b` and `a...b` name two commits; git diff checks them itself.
    if (rev.includes("..")) return { rev, since: `in ${rev}` };
    const known = await git(["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]);
    if (known.code !== 0) {
      throw new UsageError(
        `--diff ${rev}: git knows no such revision (to check only some paths against HEAD, name them after it: --diff HEAD ${rev})`,
      );
    }
    return { rev, since: `since ${rev}` };
  }
  if ((await git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])).code === 0)
    return { rev: "HEAD", since: "since HEAD" };
  const empty = await git(["hash-object", "-t", "tree", "--stdin"]);
  if (empty.code !== 0) throw new UsageError(`git hash-object: ${gitMessage(empty)}`);
  return { rev: empty.stdout.trim(), since: "in a repository with no commit yet" };
}

/** The project's files: git's list in a repository (what it ignores left out), else the project walk's. */
async function listedFiles(
  project: ProjectContext,
  git: Git,
  folders: readonly string[],
  notes: string[],
): Promise<string[]> {
  const inside = await git(["rev-parse", "--is-inside-work-tree"]).catch(() => undefined);
  if (inside && isWorkTree(inside)) {
    return gitFiles(
      git,
      ["--cached", "--others", "--exclude-standard"],
      folders.map((folder) => (folder === "" ? "." : folder)),
    );
  }
  const walked = await listProjectFiles(project.projectRoot);
  if (!walked.complete)
    notes.push(
      `the project has more than ${PROJECT_FILE_LIMIT} files, or folders nested too deep: only the first ${walked.files.length} were checked`,
    );
  return walked.files;
}

/** `git ls-files -z …`, relative to the project's root; folders of nested repositories (`sub/`) left out. */
async function gitFiles(git: Git, which: readonly string[], pathspecs: readonly string[]): Promise<string[]> {
  const listed = await git(["ls-files", "-z", ...which, "--", ...pathspecs]);
  if (listed.code !== 0) throw new UsageError(`git ls-files: ${gitMessage(listed)}`);
  return [...new Set(listed.stdout.split("\0"))].filter((file) => file !== "" && !file.endsWith("/"));
}

/** `git rev-parse --is-inside-work-tree` said yes. */
const isWorkTree = (result: GitResult): boolean => result.code === 0 && result.stdout.trim() === "true";

const under = (file: string, folder: string) => folder === "" || file === folder || file.startsWith(`${folder}/`);

/**
 * Each file read whole, in turn, under the repository's real root: one that
 * is gone, a link (its target, when in the repository, is listed itself) or
 * not a regular file is passed over; one a linked folder on its way leads out
 * of the repository is never read, and named as not checked.
 */
async function* readEach(files: readonly string[], realRoot: string): AsyncGenerator<Target> {
  for (const file of files) {
    const read = await readWhole(realRoot, file);
    if (read) yield read;
  }
}

/** NUL in the first bytes: binary, as git decides it. */
const BINARY_PROBE_BYTES = 8000;

async function readWhole(realRoot: string, file: string): Promise<Target | undefined> {
  let path = join(realRoot, file);
  let info: Stats;
  try {
    info = await lstat(path);
    path = await realpath(path);
  } catch {
    return undefined;
  }
  if (!info.isFile()) return undefined;
  if (!inside(path, [realRoot])) return { kind: "skipped", file, reason: "outside the repository" };
  if (info.size > MAX_CHECKED_BYTES)
    return { kind: "skipped", file, reason: "too large", detail: `${info.size} bytes` };
  let bytes: Uint8Array;
  try {
    bytes = await readAtMost(path, MAX_CHECKED_BYTES, info.size);
  } catch (error) {
    return errorCode(error) === "ENOENT"
      ? undefined
      : { kind: "skipped", file, reason: "unreadable", detail: errorReason(error) };
  }
  if (bytes.length > MAX_CHECKED_BYTES)
    return { kind: "skipped", file, reason: "too large", detail: `over ${MAX_CHECKED_BYTES} bytes` };
  if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return { kind: "skipped", file, reason: "binary" };
  // Read whole, every line counts as added: what a write of the file would add to nothing.
  return {
    kind: "lines",
    file,
    added: linesAdded("", Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")),
  };
}
