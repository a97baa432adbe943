/**
 * The command line as a user runs it: build once (tsc to dist/), then spawn
 * `node dist/cli/main.js …` in a temporary project with its own HOME and
 * XDG_CONFIG_HOME, and look at stdout, stderr and the exit status.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, beforeEach, vi } from "vitest";
import { tempTree } from "./temp-folder.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CLI = join(REPO, "dist", "cli", "main.js");
const LOCK = join(REPO, "node_modules", ".cache", "opencode-rulebook-cli-build.lock");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const fresh = () => existsSync(CLI) && statSync(CLI).mtimeMs >= newestSource(join(REPO, "src")) && !existsSync(LOCK);

/**
 * Builds dist/ unless it is newer than every source file. Test files run in
 * parallel, so one builds while the others wait on a lock folder.
 * Type errors elsewhere do not stop tsc from emitting; only a missing output fails.
 */
export function buildOnce(): void {
  if (fresh()) return;
  mkdirSync(dirname(LOCK), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 180_000)
        rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error("timed out waiting for another test file's build");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (existsSync(CLI) && statSync(CLI).mtimeMs >= newestSource(join(REPO, "src"))) return;
    try {
      execFileSync(process.execPath, [join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", "."], {
        cwd: REPO,
        stdio: "pipe",
      });
    } catch (error) {
      if (!existsSync(CLI)) throw error;
      console.warn(
        `tsc reported errors (outside the command line?); testing the emitted build:\n${String((error as { stdout?: Buffer }).stdout ?? error)}`,
      );
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

export interface Sandbox {
  root: string;
  /** The project folder (it has a `.git` folder). */
  project: string;
  home: string;
  /** XDG_CONFIG_HOME: the global rules folder is `<xdg>/opencode/rules`. */
  xdg: string;
  globalRules: string;
  projectRules: string;
  /** Writes files relative to the project (or absolute paths). */
  write(files: Record<string, string>): Promise<void>;
  run(args: string[], options?: { env?: Record<string, string | undefined>; input?: string; cwd?: string }): Run;
  cleanup(): Promise<void>;
}

/** The environment of a spawned command: no colour settings or OpenCode config leaking in from the test runner. */
export function cleanEnv(home: string, xdg: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // The pack cache and the managed rules folder of the machine running the tests stay out of it.
  const apart = {
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    OPENCODE_RULEBOOK_MANAGED_DIR: join(home, "managed", "rules"),
  };
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: xdg, ...apart, ...extra };
  for (const key of [
    "NO_COLOR",
    "FORCE_COLOR",
    "OPENCODE_CONFIG_DIR",
    "OPENCODE_CONFIG",
    "OPENCODE_TUI_CONFIG",
    "OPENCODE_RULEBOOK_DEBUG",
    "NODE_OPTIONS",
    "XDG_DATA_HOME",
  ]) {
    if (!(key in extra)) delete env[key];
  }
  for (const [key, value] of Object.entries(extra)) if (value === undefined) delete env[key];
  return env;
}

export async function sandbox(): Promise<Sandbox> {
  const tree = await tempTree("rulebook-cli-", { configApart: true, git: true });
  const { root, project, home, configHome: xdg } = tree;
  const box: Sandbox = {
    root,
    project,
    home,
    xdg,
    globalRules: join(xdg, "opencode", "rules"),
    projectRules: join(project, ".opencode", "rules"),
    async write(files) {
      await tree.write(project, files);
    },
    run(args, options = {}) {
      const spawned = spawnSync(process.execPath, [CLI, ...args], {
        cwd: options.cwd ?? project,
        env: cleanEnv(home, xdg, options.env),
        input: options.input ?? "",
        encoding: "utf8",
        timeout: 30_000,
      });
      if (spawned.error) throw spawned.error;
      return { stdout: spawned.stdout, stderr: spawned.stderr, code: spawned.status };
    },
    cleanup: tree.cleanup,
  };
  return box;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matches ANSI colour codes, which begin with ESC
export const ANSI = /\x1b\[[0-9;]*m/;

/**
 * Registers, for the test file calling it: the build, and a fresh sandbox per
 * test filled by `fill` (nothing when absent). Returns the current sandbox.
 * Each test spawns the command a few times; a loaded machine makes that slow.
 */
export function useSandbox(fill?: (box: Sandbox) => Promise<unknown>): () => Sandbox {
  let box: Sandbox | undefined;
  vi.setConfig({ testTimeout: 60_000 });
  beforeAll(() => buildOnce(), 180_000);
  beforeEach(async () => {
    box = await sandbox();
    await fill?.(box);
  });
  afterEach(() => box?.cleanup());
  return () => box as Sandbox;
}

/** `script` gives a command a terminal; tests of terminal behaviour need it. */
export const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
