/**
 * The parse cache on disk: one file per project (worktree and directory) in
 * OpenCode's cache folder (`$XDG_CACHE_HOME/opencode`, else `~/.cache/opencode`),
 * under `rulebook/`. What it may cost and trust is bounded:
 *
 * - never shared between users: the folder is made `0700` and the file
 *   `0600`; a file another user owns, or others may write, is not read, a
 *   folder others may write is not written to;
 * - never trusted across a change: each entry is checked against the file's
 *   version (parse-cache.ts), the whole file against the plugin's build;
 * - bounded: a file over MAX_CACHE_BYTES is neither read nor written, at most
 *   MAX_PROJECTS project files are kept (the least recently written go), and
 *   a load not done within LOAD_WAIT_MS (a hung network home) is given up:
 *   the rules are then read from their files, as without a cache.
 *
 * A save waits SAVE_DELAY_MS before it builds and writes the file: a first
 * start's cache (megabytes of JSON at 1,000 rules) is then written while
 * OpenCode waits for its user, not while the plugin starts and answers the
 * first message. A timer that keeps the process: it exits after the write.
 */
import { createHash, randomBytes } from "node:crypto";
import callbackFs from "node:fs";
import { mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "../log.js";
import { readAtMost, readOpened } from "./fs.js";
import type { ParseCacheEntries } from "./parse-cache.js";
import { cacheEntries, cacheText } from "./parse-cache-format.js";
import { within } from "./within.js";

const MAX_CACHE_BYTES = 32 * 1024 * 1024;
export const MAX_PROJECTS = 64;
const LOAD_WAIT_MS = 500;
export const SAVE_DELAY_MS = 1000;

export interface ParseCacheStore {
  /** The parses kept for the project; none when there is no cache file, or it cannot be trusted or read in time. */
  load(): Promise<ParseCacheEntries>;
  /** Writes them for the next start; never throws. */
  save(entries: ParseCacheEntries): Promise<void>;
}

interface ParseCacheOptions {
  /** The cache folder (`parseCacheFolder`). */
  folder: string;
  /** The worktree and directory the parses are for. */
  project: { worktree: string; directory: string };
  log: Logger;
  /** The plugin's build; by default its version and this module file's own version. */
  build?: Promise<string>;
  /** Reads the cache file; replaced by tests (a read that never ends). */
  read?: (path: string, maxBytes: number) => Promise<Uint8Array | undefined>;
  loadWaitMs?: number;
  /** How long a save waits before it writes (SAVE_DELAY_MS; tests write at once). */
  saveDelayMs?: number;
}

/** `rulebook/` in OpenCode's cache folder. */
export function parseCacheFolder(env: Record<string, string | undefined>, home: string): string {
  return join(env.XDG_CACHE_HOME || join(home, ".cache"), "opencode", "rulebook");
}

export function fileParseCache(options: ParseCacheOptions): ParseCacheStore {
  const { folder, project, log } = options;
  const projectKey = `${project.worktree}\0${project.directory}`;
  const file = join(folder, `${createHash("sha256").update(projectKey).digest("hex").slice(0, 32)}.json`);
  const build = options.build ?? pluginBuild();
  const read = options.read ?? readOwnFile;
  let writing: Promise<void> = Promise.resolve();

  const load = async (): Promise<ParseCacheEntries> => {
    const bytes = await read(file, MAX_CACHE_BYTES);
    if (!bytes) return new Map();
    return cacheEntries(bytes, { project: projectKey, build: await build });
  };
  return {
    async load() {
      const waitMs = options.loadWaitMs ?? LOAD_WAIT_MS;
      try {
        const loaded = await within(load(), waitMs);
        if (loaded) return loaded;
        log.warn(`The parsed-rules cache ${file} was not read within ${waitMs} ms; rules are read from their files`);
      } catch (error) {
        log.debug(`The parsed-rules cache ${file} was not used: ${(error as Error)?.message ?? String(error)}`);
      }
      return new Map();
    },
    save(entries) {
      // One write at a time, in order: the last load's parses are what stays.
      const delay = options.saveDelayMs ?? SAVE_DELAY_MS;
      writing = writing
        .then(() => new Promise((resolve) => setTimeout(resolve, delay)))
        .then(() => write(file, projectKey, build, entries, log));
      return writing;
    },
  };
}

/**
 * The plugin's version and this module's own file version: a new build or release never reads an older one's parses.
 */
async function pluginBuild(): Promise<string> {
  const module = fileURLToPath(import.meta.url);
  const [manifest, self] = await Promise.all([
    readAtMost(join(dirname(module), "..", "..", "package.json"), 64 * 1024).then(
      (bytes) => (JSON.parse(Buffer.from(bytes).toString("utf8")) as { version?: unknown }).version,
      () => undefined,
    ),
    stat(module).then(
      (found) => `${found.size}:${found.mtimeMs}`,
      () => "unknown",
    ),
  ]);
  return `${String(manifest)}:${self}`;
}

/**
 * The file's bytes when it is a regular file this user owns and only this user may write; undefined when there is none.
 */
function readOwnFile(path: string, maxBytes: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const flags = callbackFs.constants.O_RDONLY | (callbackFs.constants.O_NOFOLLOW ?? 0);
    callbackFs.open(path, flags, (error, fd) => {
      if (error) return (error as NodeJS.ErrnoException).code === "ENOENT" ? resolve(undefined) : reject(error);
      // Checked and read through one descriptor: the file read is the file checked.
      callbackFs.fstat(fd, (statError, found) => {
        const problem = statError ? statError.message : untrusted(found);
        if (problem) return callbackFs.close(fd, () => reject(new Error(problem)));
        readOpened(fd, maxBytes, found.size).then(
          (bytes) => resolve(bytes.byteLength > maxBytes ? undefined : bytes),
          reject,
        );
      });
    });
  });
}

/** Why a cache file or folder is not this user's alone; undefined when it is. */
function untrusted(found: callbackFs.Stats): string | undefined {
  if (found.size > MAX_CACHE_BYTES) return `it is over ${MAX_CACHE_BYTES} bytes`;
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // Windows: the folder is in the user's profile.
  if (found.uid !== uid) return "another user owns it";
  if ((found.mode & 0o022) !== 0) return "other users may write it";
  return undefined;
}

async function write(
  file: string,
  projectKey: string,
  build: Promise<string>,
  entries: ParseCacheEntries,
  log: Logger,
): Promise<void> {
  const folder = dirname(file);
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const text = cacheText(entries, { project: projectKey, build: await build });
    if (text.length > MAX_CACHE_BYTES) {
      await rm(file, { force: true });
      log.debug(`The parsed-rules cache is not kept: ${entries.size} rules take more than ${MAX_CACHE_BYTES} bytes`);
      return;
    }
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const problem = untrusted(await stat(folder));
    if (problem) {
      log.warn(`The parsed-rules cache is not written to ${folder}: ${problem}`);
      return;
    }
    // A new file of this process's own, then renamed: a reader sees the old file or the new one, never half of one.
    await writeFile(temporary, text, { flag: "wx", mode: 0o600 });
    await rename(temporary, file);
    await prune(folder);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    log.warn(
      `The parsed-rules cache could not be written to ${file}: ${(error as Error)?.message ?? String(error)}; the next start reads every rule file`,
    );
  }
}

/** Keeps the MAX_PROJECTS most recently written project files, and removes temporary files a stopped process left. */
async function prune(folder: string): Promise<void> {
  const names = await readdir(folder);
  const found = await Promise.all(
    names.map((name) =>
      stat(join(folder, name)).then(
        (stats) => ({ name, time: stats.mtimeMs }),
        () => undefined,
      ),
    ),
  );
  const files = found.filter((entry) => entry !== undefined);
  const stale = Date.now() - 60 * 60 * 1000;
  const projects = files.filter((entry) => entry.name.endsWith(".json")).sort((a, b) => b.time - a.time);
  const gone = [
    ...projects.slice(MAX_PROJECTS),
    ...files.filter((entry) => entry.name.endsWith(".tmp") && entry.time < stale),
  ];
  await Promise.all(gone.map((entry) => rm(join(folder, entry.name), { force: true })));
}
