/**
 * Git, run for `verify`: without a shell (arguments are never parsed
 * again), in the project's root, with bounded output and time. The
 * environment is passed on whole: in a pre-commit hook, `GIT_INDEX_FILE`
 * names the index the commit is about to record.
 */
import { execFile } from "node:child_process";
import { UsageError } from "./context.js";

/** The most a git command may print: a diff this large is not one to review line by line. */
const GIT_MAX_BYTES = 64 * 1024 * 1024;
const GIT_TIMEOUT_MS = 60_000;

export interface GitResult {
  /** Git's exit status: 0 done, 1 `--quiet` found nothing, 128 a fatal error. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `git args…`; a non-zero status is returned, a git that cannot run or be read is a UsageError (exit status 2:
 * nothing was checked).
 */
export type Git = (args: readonly string[]) => Promise<GitResult>;

export function gitIn(cwd: string, env: Record<string, string | undefined>): Git {
  return (args) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        "git",
        [...args],
        { cwd, env, encoding: "utf8", maxBuffer: GIT_MAX_BYTES, timeout: GIT_TIMEOUT_MS, windowsHide: true },
        (error, stdout, stderr) => {
          if (!error) return resolve({ code: 0, stdout, stderr });
          const failure = error as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
          if (failure.code === "ENOENT")
            return reject(new UsageError("git was not found: install it, or put it on the PATH"));
          if (failure.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
            return reject(
              new UsageError(
                `git ${args[0]} printed more than ${GIT_MAX_BYTES / 1024 / 1024} MiB: name fewer paths, or a nearer revision`,
              ),
            );
          }
          if (failure.killed)
            return reject(new UsageError(`git ${args[0]} did not finish within ${GIT_TIMEOUT_MS / 1000} s`));
          if (typeof failure.code === "number") return resolve({ code: failure.code, stdout, stderr });
          reject(new UsageError(`git ${args[0]} could not run: ${failure.message}`));
        },
      );
      // Git never waits for input here (`hash-object --stdin` reads nothing).
      child.stdin?.end();
    });
}

/** Git's own message, for a person: its first line without `fatal: `. */
export function gitMessage(result: GitResult): string {
  const line = result.stderr.split("\n").find((text) => text.trim() !== "") ?? `exit status ${result.code}`;
  return line.replace(/^(fatal|error): /, "").trim();
}
