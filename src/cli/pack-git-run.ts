/**
 * One git command for the Git packs (src/cli/pack-git.ts): without a shell,
 * every argument an array element; without the variables that point git at
 * another repository; hooks and the `ext::` transport off, no password asked
 * on the terminal; with bounded output and time. A git that cannot run or be
 * read is a UsageError; a non-zero status is returned.
 */
import { execFile } from "node:child_process";
import { UsageError } from "./context.js";
import type { GitResult } from "./git.js";

/** A fetch may bring a whole repository over a slow network. */
const PACK_GIT_TIMEOUT_MS = 10 * 60_000;
/** Fetches are quiet and rev-parse prints one line: more than this is not git answering. */
const PACK_GIT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Variables that point git at another repository or index: in a hook,
 * `GIT_INDEX_FILE` is the project's, not the checkout's.
 */
const REPO_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
];
const NO_HOOKS = process.platform === "win32" ? "NUL" : "/dev/null";
/**
 * Before every command: no transport that runs a command, no hooks (the
 * cache's repositories are ours, but a template may bring some).
 */
const SAFE_CONFIG = ["-c", "protocol.ext.allow=never", "-c", `core.hooksPath=${NO_HOOKS}`];

/** The environment packs' git runs in: the user's, without REPO_VARIABLES, never prompting. */
export function packGitEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const gitEnv: Record<string, string | undefined> = { ...env, GIT_TERMINAL_PROMPT: "0" };
  for (const name of REPO_VARIABLES) delete gitEnv[name];
  return gitEnv;
}

/** Runs `git args…` in `cwd` with `gitEnv` (from packGitEnv). */
export function runPackGit(
  gitEnv: Record<string, string | undefined>,
  args: readonly string[],
  cwd?: string,
): Promise<GitResult> {
  return new Promise((done, reject) => {
    const options = {
      cwd,
      env: gitEnv,
      encoding: "utf8" as const,
      maxBuffer: PACK_GIT_MAX_BYTES,
      timeout: PACK_GIT_TIMEOUT_MS,
      windowsHide: true,
    };
    const child = execFile("git", [...SAFE_CONFIG, ...args], options, (error, stdout, stderr) => {
      if (!error) return done({ code: 0, stdout, stderr });
      const failure = error as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
      const command = subcommand(args);
      if (failure.code === "ENOENT")
        return reject(new UsageError("git was not found: install it, or put it on the PATH, to fetch Git packs"));
      if (failure.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
        return reject(new UsageError(`git ${command} printed more than ${PACK_GIT_MAX_BYTES >> 20} MiB`));
      }
      if (failure.killed)
        return reject(new UsageError(`git ${command} did not finish within ${PACK_GIT_TIMEOUT_MS / 1000} s`));
      if (typeof failure.code === "number") return done({ code: failure.code, stdout, stderr });
      reject(new UsageError(`git ${command} could not run: ${failure.message}`));
    });
    child.stdin?.end();
  });
}

/** The git command in `args`, for a message: the first word that is neither an option nor the value of `-c`. */
function subcommand(args: readonly string[]): string {
  for (let index = 0; index < args.length; index++) {
    if (args[index] === "-c") index++;
    else if (!args[index]!.startsWith("-")) return args[index]!;
  }
  return "";
}
