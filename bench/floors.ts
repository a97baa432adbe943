/**
 * The least an asynchronous loader must do with the same rule files, for
 * the start figures (cold.ts) to be read against: what the thread pool's
 * trips cost on this machine before any parsing, indexing or message.
 * Callbacks only (no promise per call), every file at once or, for reads,
 * at discovery's own bound of files open at once.
 *
 * - `stats`: one `stat` per rule file, as a later start checks each file
 *   against the parse cache.
 * - `reads`: `stat`, `open`, `read`, `close` per file, as a first start reads
 *   each file after stamping it (a stamp taken after the read could describe
 *   a newer version than the bytes the cache keeps).
 */
import callbackFs, { readdirSync } from "node:fs";
import { join } from "node:path";

export type AsyncFloorKind = "stats" | "reads";

const RULE_FILE = /\.(md|mdc)$/i;
/** discover/discover.ts `FILES_OPEN_AT_ONCE`. */
const OPEN_AT_ONCE = 32;

/** The rule files under `dir`, listed synchronously (not timed). */
export function ruleFilesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && RULE_FILE.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

/** Runs the floor of `kind` over `files`; resolves when every file is done. */
export function asyncFloor(kind: AsyncFloorKind, files: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let next = 0;
    let left = files.length;
    const done = (error: Error | null) => {
      if (error) return reject(error);
      if (--left === 0) resolve();
      else if (kind === "reads") start();
    };
    const start = () => {
      if (next >= files.length) return;
      const path = files[next++] as string;
      if (kind === "stats") callbackFs.stat(path, (error) => done(error));
      else stampedRead(path, done);
    };
    if (left === 0) resolve();
    else for (let i = 0; i < (kind === "stats" ? files.length : OPEN_AT_ONCE); i++) start();
  });
}

function stampedRead(path: string, done: (error: Error | null) => void): void {
  callbackFs.stat(path, (error, stats) => {
    if (error) return done(error);
    callbackFs.open(path, "r", (error, fd) => {
      if (error) return done(error);
      const buffer = Buffer.allocUnsafe(stats.size + 1);
      callbackFs.read(fd, buffer, 0, buffer.length, 0, (readError) =>
        callbackFs.close(fd, (closeError) => done(readError ?? closeError)),
      );
    });
  });
}
