/**
 * The file system calls discovery makes, in one object, so tests can replace
 * any of them (a permission error, a file that changes while read).
 */
import { promises as fs, type Dirent, type Stats } from "node:fs";

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

async function readAtMost(path: string, maxBytes: number): Promise<Uint8Array> {
  const handle = await fs.open(path, "r");
  try {
    const { size } = await handle.stat();
    // One byte past what is expected shows a file that grows while it is read.
    const buffer = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** `ENOENT`-style code of a file system error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
