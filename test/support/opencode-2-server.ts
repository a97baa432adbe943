/**
 * Runs the simulated OpenCode 2 server in a process of its own
 * (`opencode-2-server-main.ts`) and checks what OpenCode 2's terminal UI
 * checks of it: its stdout's first line is the server's ready line, and
 * nothing else follows (the terminal UI then talks to it over that pipe).
 * A plugin that writes to stdout while loading fails the start; one that
 * writes later breaks the connection. Stderr is the server's own; the
 * terminal UI drops it unless `OPENCODE_PRINT_LOGS=1`.
 */
import { execFile } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempFolder } from "./temp-folder.js";

/** The line the simulated server writes once it listens. */
export const READY_LINE = "opencode server listening on stdio";

export interface ServerScript {
  /** The plugin module (its default export is loaded). */
  plugin: string;
  directory: string;
  options?: Record<string, unknown>;
  failing?: boolean;
  turns: Array<{ text: string; read?: string; compactAfter?: boolean }>;
  report: string;
}

export interface ServerRun {
  /** Why OpenCode 2's terminal UI would fail with this server, or undefined. */
  problem?: string;
  stdout: string;
  stderr: string;
  /** The model's requests (messages as JSON), the turns' errors, the crashed steps. */
  report?: { requests: string[]; errors: string[]; crashed: string[] };
}

const MAIN = fileURLToPath(new URL("./opencode-2-server-main.ts", import.meta.url));

/** What the terminal UI makes of the server's stdout. */
export function stdoutProblem(stdout: string): string | undefined {
  const newline = stdout.indexOf("\n");
  const first = newline < 0 ? stdout : stdout.slice(0, newline);
  if (first !== READY_LINE)
    return `start failed: the server's first line on stdout is ${JSON.stringify(first.slice(0, 200))}, not its ready line`;
  const rest = stdout.slice(newline + 1);
  if (rest !== "")
    return `connection broken: stdout carries more than the ready line: ${JSON.stringify(rest.slice(0, 200))}`;
  return undefined;
}

/** Runs the script in a server process with `env` (HOME and XDG folders: the caller's temporary ones). */
export async function runSimulatedServer(
  script: Omit<ServerScript, "report">,
  env: Record<string, string>,
): Promise<ServerRun> {
  const scratch = await tempFolder("oc2-server-");
  try {
    const report = join(scratch, "report.json");
    const file = join(scratch, "script.json");
    await writeFile(file, JSON.stringify({ ...script, report }));
    const { stdout, stderr, failed } = await new Promise<{ stdout: string; stderr: string; failed?: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          ["--import", "tsx", MAIN, file],
          { env: { ...process.env, ...env }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
          (error, out, err) =>
            resolve({ stdout: String(out), stderr: String(err), ...(error ? { failed: error.message } : {}) }),
        );
      },
    );
    const problem = stdoutProblem(stdout) ?? (failed ? `the server failed: ${failed}` : undefined);
    const written = await readFile(report, "utf8").catch(() => undefined);
    return { stdout, stderr, ...(problem ? { problem } : {}), ...(written ? { report: JSON.parse(written) } : {}) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
