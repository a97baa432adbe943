/**
 * The file system calls discovery makes, in one object, so tests can replace
 * any of them (a permission error, a file that changes while read).
 *
 * Every call is asynchronous (a repository on a hung network mount must not
 * block OpenCode's process), through Node's callback API: each call is one
 * trip to the thread pool, without the promise API's extra layers.
 */
import callbackFs, { type Dirent, type Stats } from "node:fs";
import type { SmallFileReader } from "../conditions/contract.js";

export interface RuleFs {
  readdir(path: string): Promise<Dirent[]>;
  /** Follows symlinks: the type and size of what a link points at. */
  stat(path: string): Promise<Stats>;
  realpath(path: string): Promise<string>;
  /**
   * At most `maxBytes + 1` bytes, so a file that grew past the limit is seen
   * as too large without being read whole. `size`, when the caller has just
   * seen it (a stat), sizes the first read; without it the file is measured.
   */
  readFile(path: string, maxBytes: number, size?: number): Promise<Uint8Array>;
}

export const nodeRuleFs: RuleFs = {
  readdir: (path) =>
    new Promise((resolve, reject) =>
      callbackFs.readdir(path, { withFileTypes: true }, (error, entries) => (error ? reject(error) : resolve(entries))),
    ),
  stat: (path) =>
    new Promise((resolve, reject) => callbackFs.stat(path, (error, stats) => (error ? reject(error) : resolve(stats)))),
  // The native realpath(3), as `fs.promises.realpath` uses: one call, not a walk of the path's parts.
  realpath: (path) =>
    new Promise((resolve, reject) =>
      callbackFs.realpath.native(path, (error, real) => (error ? reject(error) : resolve(real))),
    ),
  readFile: readAtMost,
};

/**
 * Reads at most `maxBytes + 1` bytes of a file, allocating no more than its
 * size (as `size` or fstat gives it) plus one byte: a large limit must not
 * cost memory for small files, and nothing is kept between reads.
 *
 * The byte past the size (or the limit) shows a file that grew since it was
 * measured, or is too large, without reading it whole. A read that fills
 * less than it asked for has reached the end of the file; only a read that
 * filled the buffer is followed by another.
 */
export function readAtMost(path: string, maxBytes: number, size?: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    callbackFs.open(path, "r", (error, fd) => {
      if (error) reject(error);
      else boundedRead(fd, maxBytes, size, resolve, reject);
    });
  });
}

/** `readAtMost` of a file already open; the file is closed when the read ends. */
export function readOpened(fd: number, maxBytes: number, size?: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => boundedRead(fd, maxBytes, size, resolve, reject));
}

/** One open file's read, to its close. */
function boundedRead(
  fd: number,
  maxBytes: number,
  size: number | undefined,
  resolve: (bytes: Uint8Array) => void,
  reject: (error: unknown) => void,
): void {
  let buffer = EMPTY;
  let filled = 0;
  const end = (error: Error | null) => {
    // A file that shrank since it was measured is copied out, so a large buffer is not kept alive for a few bytes.
    const bytes = filled * 2 < buffer.length ? Buffer.from(buffer.subarray(0, filled)) : buffer.subarray(0, filled);
    callbackFs.close(fd, (closeError) => {
      // As a `finally` would: a failed close is the error reported.
      if (closeError || error) reject(closeError ?? error);
      else resolve(bytes);
    });
  };
  const next = () => {
    if (filled === buffer.length) {
      if (filled > maxBytes) return end(null);
      // The file grew past its measured size but may still fit the limit: keep reading, in a larger buffer.
      buffer = grown(buffer, Math.min(buffer.length * 2, maxBytes + 1));
    }
    const asked = buffer.length - filled;
    callbackFs.read(fd, buffer, filled, asked, filled, (error, bytesRead) => {
      if (error) return end(error);
      filled += bytesRead;
      // Short of what was asked: the end of the file.
      if (bytesRead < asked) end(null);
      else next();
    });
  };
  const readFrom = (measured: number) => {
    buffer = Buffer.allocUnsafe(Math.min(Math.max(measured, 0), maxBytes) + 1);
    next();
  };
  if (size !== undefined) readFrom(size);
  else callbackFs.fstat(fd, (error, stats) => (error ? end(error) : readFrom(stats.size)));
}

const EMPTY: Buffer = Buffer.alloc(0);

function grown(buffer: Buffer, length: number): Buffer {
  const bigger = Buffer.allocUnsafe(length);
  buffer.copy(bigger);
  return bigger;
}

/**
 * What a file's version is known by without reading it: device, inode, size,
 * and modification and change times. Any write changes the change time (a
 * program cannot set it back), a replaced or re-linked file has another
 * inode. `changedAt`: when it last changed, to tell a version too recent to
 * trust (a second write within the clock's tick keeps both times).
 */
export interface FileVersion {
  stamp: string;
  changedAt: number;
}

/** Undefined when the stats lack a part (a test's stand-in file system): such a file is always read. */
export function fileVersion(stats: Stats): FileVersion | undefined {
  const { dev, ino, size, mtimeMs, ctimeMs } = stats;
  // Checked one by one, not as an array: this runs for every rule file at every start.
  if (
    !Number.isFinite(dev) ||
    !Number.isFinite(ino) ||
    !Number.isFinite(size) ||
    !Number.isFinite(mtimeMs) ||
    !Number.isFinite(ctimeMs)
  )
    return undefined;
  return { stamp: `${dev}:${ino}:${size}:${mtimeMs}:${ctimeMs}`, changedAt: Math.max(mtimeMs, ctimeMs) };
}

/** `ENOENT`-style code of a file system error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** How a file system error is named in a warning: its code (`EACCES`), else its text. */
export function errorReason(error: unknown): string {
  return errorCode(error) ?? String(error);
}

/**
 * A small file's bytes (a lock, a package.json), read only when it is a
 * regular file of at most `maxBytes`: a FIFO would hold the read open
 * forever. Otherwise an error whose reason says why (`ENOENT` as usual).
 */
export async function readRegularFile(
  fs: Pick<RuleFs, "stat" | "readFile">,
  path: string,
  maxBytes: number,
): Promise<Uint8Array> {
  const stat = await fs.stat(path);
  if (!stat.isFile()) throw Object.assign(new Error("not a regular file"), { code: "not a regular file" });
  if (stat.size > maxBytes) throw Object.assign(new Error("too large"), { code: `over ${maxBytes} bytes` });
  return fs.readFile(path, maxBytes, stat.size);
}

/** What a condition kind may read of the project (conditions/contract.ts): a file of a few lines, like `.git/HEAD`. */
const SMALL_FILE_BYTES = 4096;

/** Reads a small regular file's text; a missing, special or larger file reads as undefined, never throws. */
export const smallFileReader =
  (fs: Pick<RuleFs, "stat" | "readFile">): SmallFileReader =>
  (path) =>
    readRegularFile(fs, path, SMALL_FILE_BYTES).then(
      (bytes) => new TextDecoder().decode(bytes),
      () => undefined,
    );
