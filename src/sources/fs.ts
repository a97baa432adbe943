/**
 * The file system calls discovery makes, in one object, so tests can replace
 * any of them (a permission error, a file that changes while read).
 *
 * Every call is asynchronous (a repository on a hung network mount must not
 * block OpenCode's process), through Node's callback API: each call is one
 * trip to the thread pool, without the promise API's extra layers.
 */
import callbackFs, { type Dirent, type Stats } from "node:fs";

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
  readdir: (path) => new Promise((resolve, reject) => callbackFs.readdir(path, { withFileTypes: true }, (error, entries) => (error ? reject(error) : resolve(entries)))),
  stat: (path) => new Promise((resolve, reject) => callbackFs.stat(path, (error, stats) => (error ? reject(error) : resolve(stats)))),
  // The native realpath(3), as `fs.promises.realpath` uses: one call, not a walk of the path's parts.
  realpath: (path) => new Promise((resolve, reject) => callbackFs.realpath.native(path, (error, real) => (error ? reject(error) : resolve(real)))),
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
      else new BoundedRead(fd, maxBytes, resolve, reject).start(size);
    });
  });
}

/** One open file's read, to its close: callbacks on one object, not closures made for each file. */
class BoundedRead {
  private buffer = EMPTY;
  private filled = 0;

  constructor(
    private readonly fd: number,
    private readonly maxBytes: number,
    private readonly resolve: (bytes: Uint8Array) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  start(size: number | undefined): void {
    if (size !== undefined) this.readFrom(size);
    else callbackFs.fstat(this.fd, (error, stats) => (error ? this.end(error) : this.readFrom(stats.size)));
  }

  private readFrom(size: number): void {
    this.buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 0), this.maxBytes) + 1);
    this.next();
  }

  private next(): void {
    if (this.filled === this.buffer.length) {
      if (this.filled > this.maxBytes) {
        this.end(null);
        return;
      }
      // The file grew past its measured size but may still fit the limit: keep reading, in a larger buffer.
      this.buffer = grown(this.buffer, Math.min(this.buffer.length * 2, this.maxBytes + 1));
    }
    const asked = this.buffer.length - this.filled;
    callbackFs.read(this.fd, this.buffer, this.filled, asked, this.filled, (error, bytesRead) => {
      if (error) {
        this.end(error);
        return;
      }
      this.filled += bytesRead;
      // Short of what was asked: the end of the file.
      if (bytesRead < asked) this.end(null);
      else this.next();
    });
  }

  private end(error: Error | null): void {
    const { buffer, filled } = this;
    // A file that shrank since it was measured is copied out, so a large buffer is not kept alive for a few bytes.
    const bytes = filled * 2 < buffer.length ? Buffer.from(buffer.subarray(0, filled)) : buffer.subarray(0, filled);
    callbackFs.close(this.fd, (closeError) => {
      // As a `finally` would: a failed close is the error reported.
      if (closeError || error) this.reject(closeError ?? error);
      else this.resolve(bytes);
    });
  }
}

const EMPTY: Buffer = Buffer.alloc(0);

function grown(buffer: Buffer, length: number): Buffer {
  const bigger = Buffer.allocUnsafe(length);
  buffer.copy(bigger);
  return bigger;
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
