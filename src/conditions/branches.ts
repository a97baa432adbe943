/**
 * `branches`: the rule applies only while the repository's current branch
 * matches one of its globs (`release/*`, `main`), whatever its mode. The
 * branch is read from `.git/HEAD` (a worktree's or a submodule's through the
 * `gitdir:` line of its `.git` file), never by running git, before each turn
 * and tool result: a switch mid-session is a switch of scope, like an agent's.
 * A detached HEAD is the branch `HEAD`. Only the plugin's own rule files read
 * the key; no other tool has it. Pure, but for the reads `observe` is handed.
 */
import { isAbsolute, join, resolve } from "node:path";
import { compileGlob } from "../glob/compile.js";
import type { ConditionProblem, NarrowingKind, SmallFileReader } from "./contract.js";
import { isNameList, readNames } from "./front-matter-list.js";
import { nameOption } from "./name-option.js";

const BRANCH_KEYS = ["branches"] as const;

/** The branch a detached HEAD is on, as `git status` and a rule's `branches: [HEAD]` name it. */
export const DETACHED = "HEAD";

export const branches = {
  kind: "branches",
  role: "narrows",
  keys: BRANCH_KEYS,
  expected: 'a branch name or glob such as "release/*", a comma-separated list of them, or a YAML list of them',
  inOtherTools: false,
  read: (data) => {
    const read = readNames(data, BRANCH_KEYS, true);
    // A glob that cannot be used matches no branch: said, and the rule stays narrowed to the others (or to none).
    const unusable: ConditionProblem[] = (read.value ?? []).flatMap((glob) => {
      const compiled = compileGlob(glob);
      return compiled.ok ? [] : [{ code: "value-unusable", key: "branches", value: glob, reason: compiled.problem }];
    });
    return { ...read, problems: [...read.problems, ...unusable] };
  },
  isValue: isNameList,
  json: (globs) => (globs ? { branches: globs } : {}),
  fact: "branch",
  holds: (globs, branch) => (branch === undefined ? undefined : globs.find((glob) => branchMatches(glob, branch))),
  option: nameOption({
    flag: "--branch",
    value: "<name>",
    help: "the repository's branch the session works on (default: the one checked out); rules for other branches do not apply",
    accepts: (branch) => plausibleBranch(branch) || branch === DETACHED,
    problem: "give a branch name, such as main or release/1.2, or HEAD for a detached HEAD",
  }),
  observe: branchOf,
  words: {
    noun: "branch",
    nouns: "branches",
    written: (branch) => branch,
    now: (branch) =>
      branch === undefined ? "the repository's branch is not known" : `the repository is on branch ${branch}`,
    workingAs: (branch) => (branch === undefined ? undefined : `branch ${branch}`),
  },
} as const satisfies NarrowingKind<"branches", "branch", string>;

/**
 * A glob over the branch name: `*` stays within one `/` part (`release/*`), `**` crosses them; case counts, as in
 * git. A detached HEAD is on no branch: only `HEAD` itself names it, never `*`.
 */
const branchMatches = (glob: string, branch: string): boolean => {
  if (branch === DETACHED) return glob === DETACHED;
  const compiled = compileGlob(glob);
  return compiled.ok && compiled.match(branch);
};

/** The branch checked out in the repository at `root`, or undefined outside one (or when HEAD cannot be read). */
async function branchOf(read: SmallFileReader, root: string): Promise<string | undefined> {
  const head = await read(join(root, ".git", "HEAD"));
  if (head !== undefined) return branchOfHead(head);
  // A worktree or a submodule: `.git` is a file naming the folder that holds its HEAD.
  const link = await read(join(root, ".git"));
  const gitDir = link === undefined ? undefined : gitDirOf(link, root);
  const linked = gitDir === undefined ? undefined : await read(join(gitDir, "HEAD"));
  return linked === undefined ? undefined : branchOfHead(linked);
}

/**
 * The branch `HEAD`'s text names: `main` for `ref: refs/heads/main`,
 * `DETACHED` for a commit id; undefined for anything else (a damaged file, a
 * name git would refuse), so that a rule for some branches does not apply.
 */
export function branchOfHead(text: string): string | undefined {
  const line = text.replace(/\r?\n$/, "");
  if (/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(line)) return DETACHED;
  const name = /^ref: refs\/heads\/(.+)$/.exec(line)?.[1];
  return name !== undefined && plausibleBranch(name) ? name : undefined;
}

/** The folder a `.git` file's `gitdir: <path>` line names, resolved from the folder holding it. */
function gitDirOf(text: string, root: string): string | undefined {
  const path = /^gitdir: (.+?)\r?\n?$/.exec(text)?.[1];
  if (path === undefined) return undefined;
  return isAbsolute(path) ? path : resolve(root, path);
}

/** Longer names are not taken: a branch's name reaches the model and the terminal, and a real one is short. */
const MAX_BRANCH_LENGTH = 255;

/**
 * What `git check-ref-format --branch` takes, in short: no control character,
 * space or `~^:?*[\`, no `..`, `//` or `@{`, not starting with `-` or `/`,
 * not ending with `/`, `.` or `.lock`. Stricter than git where a name reaches
 * a person: no invisible or direction-changing characters (Unicode format,
 * line and paragraph separators), at most MAX_BRANCH_LENGTH characters. A
 * name refused is a branch not known: rules for some branches do not apply.
 */
function plausibleBranch(name: string): boolean {
  return (
    name !== "" &&
    name.length <= MAX_BRANCH_LENGTH &&
    !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s~^:?*[\\]|\.\.|\/\/|@\{/u.test(name) &&
    !name.startsWith("-") &&
    !name.startsWith("/") &&
    !name.endsWith("/") &&
    !name.endsWith(".") &&
    !name.endsWith(".lock")
  );
}
