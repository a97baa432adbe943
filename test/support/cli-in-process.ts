/**
 * The command line run in this process through `run` (no build needed, no
 * terminal, no question answered yes), in a given environment, home and
 * working folder: what it printed on each stream and its exit status.
 */
import type { CliIo } from "../../src/cli/context.js";
import { run } from "../../src/cli/main.js";

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
