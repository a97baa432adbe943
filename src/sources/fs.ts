/**
 * The file system calls discovery makes, in one object, so tests can replace
 * any of them (a permission error, a file that changes while read).
 */
import callbackFs, { promises as fs, type Dirent, type Stats } from "node:fs";
import { promisify } from "node:util";

export interface RuleFs {
  readdir(path: string): Promise<Dirent[]>;
  /** Follows symlinks: the type and size of what a link points at. */
  stat(path: string): Promise<Stats>;
  realpath(path: string): Promise<string>;
  /** At most `maxBytes + 1` bytes, so a file that grew past the limit is seen as too large without being read whole. */
  readFile(path: string, maxBytes: number): Promise<Uint8Array>;
}

export const nodeRuleFs: RuleFs = {
  readdir: (path) => fs.readdir(path, { withFileTypes: true }),
  stat: (path) => fs.stat(path),
  realpath: (path) => fs.realpath(path),
  readFile: readAtMost,
};

const openFile = promisify(callbackFs.open);
const fstatFile = promisify(callbackFs.fstat);
const readInto = promisify(callbackFs.read);
const closeFile = promisify(callbackFs.close);

/**
 * Reads at most `maxBytes + 1` bytes of a file, allocating no more than its
 * size (as fstat gives it) plus one byte: a large limit must not cost memory
 * for small files, and nothing is kept between reads.
 */
export async function readAtMost(path: string, maxBytes: number): Promise<Uint8Array> {
  const fd = await openFile(path, "r");
  try {
    const { size } = await fstatFile(fd);
    // The byte past the size (or the limit) shows a file that grew since fstat, or is too large, without reading it whole.
    let buffer: Buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (filled > maxBytes) break;
        // The file grew past its fstat size but may still fit the limit: keep reading, in a larger buffer.
        buffer = grown(buffer, Math.min(buffer.length * 2, maxBytes + 1));
      }
      const { bytesRead } = await readInto(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    // A file that shrank since fstat is copied out, so a large buffer is not kept alive for a few bytes.
    return filled * 2 < buffer.length ? Buffer.from(buffer.subarray(0, filled)) : buffer.subarray(0, filled);
  } finally {
    await closeFile(fd);
  }
}

function grown(buffer: Buffer, length: number): Buffer {
  const bigger = Buffer.alloc(length);
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
