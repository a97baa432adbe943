/**
 * The command line run in this process through `run` (no build needed, no
 * terminal, no question answered yes), in a given environment, home and
 * working folder: what it printed on each stream and its exit status.
 */
import { join } from "node:path";
import type { CliIo } from "../../src/cli/context.js";
import { run } from "../../src/cli/main.js";
import { type TempTree, tempTree } from "./temp-folder.js";

export interface CliPlace {
  env: Record<string, string | undefined>;
  home: string;
  cwd: string;
}

export async function runInProcess(
  args: readonly string[],
  { env, home, cwd }: CliPlace,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const io: CliIo = {
    env,
    home,
    cwd,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    confirm: async () => false,
  };
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await run(args, io, { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text) });
  return { stdout: stdout.join(""), stderr: stderr.join(""), code };
}

/**
 * A project for the command line run in this process: a git repository with its home, config, state and cache
 * folders apart, and the managed folder in its home, so nothing of the user's is read or written.
 */
export async function cliTree(prefix: string): Promise<{ tree: TempTree; env: Record<string, string | undefined> }> {
  const tree = await tempTree(prefix, { configApart: true, git: true });
  const env = {
    HOME: tree.home,
    XDG_CONFIG_HOME: tree.configHome,
    XDG_STATE_HOME: join(tree.root, "state"),
    XDG_CACHE_HOME: join(tree.home, ".cache"),
    OPENCODE_RULEBOOK_MANAGED_DIR: join(tree.home, "managed", "rules"),
  };
  return { tree, env };
}
