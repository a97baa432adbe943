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
const readInto = promisify(callbackFs.read);
const closeFile = promisify(callbackFs.close);

/** Scratch buffers of `maxBytes + 1`, reused across reads: one allocation per read in flight, not per file. */
const scratch: Buffer[] = [];

async function readAtMost(path: string, maxBytes: number): Promise<Uint8Array> {
  const fd = await openFile(path, "r");
  let buffer = scratch.pop();
  if (!buffer || buffer.length !== maxBytes + 1) buffer = Buffer.allocUnsafe(maxBytes + 1);
  try {
    // Reading one byte past the limit shows a file that is, or grew, too large, without reading it whole.
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await readInto(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return Buffer.from(buffer.subarray(0, filled));
  } finally {
    scratch.push(buffer);
    await closeFile(fd);
  }
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

/** The warning for a path that is a device, FIFO or socket: such a path is never opened. */
export const NOT_A_REGULAR_FILE = "is not a regular file (a device, FIFO or socket); never opened, skipped";
