/**
 * A real `opencode serve` as a process of its own, for end-to-end tests
 * (opencode.ts, rules.ts): spawned on a free port through a small sh watchdog
 * that leads a process group of its own, and killed by `stop()`, by a hook at
 * the test process's exit, and by the watchdog when the test process dies, so
 * a failing test never leaves a server behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";

/** The opencode binary: the pinned opencode-ai package's (override with OPENCODE_BIN). */
export const OPENCODE_BIN =
  process.env.OPENCODE_BIN ?? fileURLToPath(new URL("../../../node_modules/.bin/opencode", import.meta.url));

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const child of live) killTree(child, "SIGKILL");
  };
  process.once("exit", killAll);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(sig, () => {
      killAll();
      process.exit(128 + (os.constants.signals[sig] ?? 1));
    });
  }
}

function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // whole process group (spawned detached)
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/**
 * sh script: $1 = parent pid, $2 = folder to delete if orphaned ("" = keep), $3.. = command.
 * Runs the command and exits with it; if the parent (test worker) dies, kills
 * the command and removes the temp folder.
 */
const WATCHDOG = `parent=$1; tmp=$2; shift 2
"$@" &
child=$!
trap 'kill -TERM $child 2>/dev/null; wait $child; exit 143' TERM INT HUP
while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 1; done
if kill -0 "$child" 2>/dev/null; then
  kill -TERM "$child"
  for i in 1 2 3 4 5 6; do kill -0 "$child" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$child" 2>/dev/null
fi
wait $child; rc=$?
if ! kill -0 "$parent" 2>/dev/null && [ -n "$tmp" ]; then rm -rf "$tmp"; fi
exit $rc`;

export interface SpawnServerOptions {
  /** Working directory of the server (the project). */
  cwd: string;
  /** The whole env of the server (nothing else is passed through). */
  env: Record<string, string>;
  /** Folder the watchdog deletes if the test process dies ("" = delete nothing; the caller owns it). */
  watchdogRoot: string;
  /** --log-level (default WARN; logs go to logs()). */
  logLevel?: "DEBUG" | "INFO" | "WARN" | "ERROR";
  /** How long to wait for `opencode server listening on …`, ms. */
  timeoutMs: number;
  /** Name used in error messages (default "opencode"). */
  name?: string;
}

export interface SpawnedServer {
  /** The watchdog shell, leader of the server's process group. */
  child: ChildProcess;
  /** Server base URL, e.g. http://127.0.0.1:4096 */
  url: string;
  /** Collected stdout+stderr of the server so far. */
  logs(): string;
  /** Collected stdout alone: OpenCode's own lines (a host may read its server's first line there). */
  stdout(): string;
  /** Kill the process group (SIGTERM, SIGKILL after 3 s) and wait for exit. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Spawns `opencode serve` on a free port through the sh watchdog (own process
 * group, killed by stop(), by the process-exit hook, and by the watchdog when
 * the test process dies) and waits until it listens. If it does not start,
 * kills it and throws with its output.
 */
export async function spawnServer(opts: SpawnServerOptions): Promise<SpawnedServer> {
  installExitHook();
  const name = opts.name ?? "opencode";
  const args = [
    "serve",
    "--hostname",
    "127.0.0.1",
    "--port",
    "0",
    "--print-logs",
    "--log-level",
    opts.logLevel ?? "WARN",
  ];
  // Spawned via a tiny sh watchdog that leads a new process group: it kills
  // opencode when the test process disappears, even on SIGKILL.
  const child = spawn(
    "/bin/sh",
    ["-c", WATCHDOG, "e2e-watchdog", String(process.pid), opts.watchdogRoot, OPENCODE_BIN, ...args],
    {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  live.add(child);
  let output = "";
  let stdout = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    output += c;
    stdout += c;
  });
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (output += c));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  exited.then(() => live.delete(child));

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    killTree(child, "SIGTERM");
    const t = setTimeout(() => killTree(child, "SIGKILL"), 3000);
    await exited;
    clearTimeout(t);
    live.delete(child);
  };

  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name} did not start within ${opts.timeoutMs}ms. Output:\n${output}`)),
        opts.timeoutMs,
      );
      const onData = () => {
        const m = output.match(/opencode server listening on (https?:\/\/\S+)/);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!.replace(/\/$/, ""));
        }
      };
      child.stdout!.on("data", onData);
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once("exit", (code, sig) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited early (code ${code}, signal ${sig}). Output:\n${output}`));
      });
    });
    return { child, url, logs: () => output, stdout: () => stdout, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
