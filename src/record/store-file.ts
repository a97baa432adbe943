/**
 * The record's file on disk (store.ts queues the lines, this appends them):
 * a folder only this user may write, a regular file this user owns (mode
 * 0600, tightened when looser), never reached through a symbolic link, and
 * bounded: a file takes lines while they fit in `maxFileBytes`, then it is
 * renamed to the rotated file (replacing the older one) and a new one begun.
 * Only a line longer than the bound on its own makes a file pass it.
 * Every call is `node:fs/promises`: a hung mount holds a write, never the event loop.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, mkdir, open, rename, stat } from "node:fs/promises";

/** The record's folder and the project's two files (location.ts). */
interface RecordPlace {
  folder: string;
  current: string;
  rotated: string;
}

/** Why lines were not appended: the path it was about and what went wrong there. */
export interface RecordProblem {
  path: string;
  what: string;
}

/** How many of the lines went to the file, in order, and why the rest did not (none: all did). */
interface Appended {
  written: number;
  problem?: RecordProblem;
}

export type AppendRecordLines = (
  place: RecordPlace,
  lines: readonly string[],
  maxFileBytes: number,
) => Promise<Appended>;

// O_NOFOLLOW: a link put in place of the file is not written through; O_NONBLOCK: a FIFO there cannot hang the open.
const APPEND_FLAGS =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/** Appends `lines` (each ending in a newline) to the project's record; never rejects. */
export const appendRecordLines: AppendRecordLines = async (place, lines, maxFileBytes) => {
  let written = 0;
  let path = place.folder;
  try {
    await mkdir(place.folder, { recursive: true, mode: 0o700 });
    const folderProblem = untrustedFolder(await stat(place.folder));
    if (folderProblem) return { written, problem: { path, what: folderProblem } };
    const sizes = lines.map((line) => Buffer.byteLength(line));
    while (written < lines.length) {
      path = place.current;
      const handle = await open(place.current, APPEND_FLAGS, 0o600);
      let count = 0;
      try {
        const found = await handle.stat();
        const fileProblem = untrustedFile(found);
        if (fileProblem) return { written, problem: { path, what: fileProblem } };
        if (process.getuid && (found.mode & 0o077) !== 0) await handle.chmod(0o600);
        // One line at least into an empty file, so every line finds a file.
        count = linesWithin(sizes, written, maxFileBytes - found.size) || (found.size === 0 ? 1 : 0);
        if (count > 0) {
          const { done, error } = await writeAll(handle, Buffer.from(lines.slice(written, written + count).join("")));
          // Lines written whole before a failure are not queued again; a line cut short is one a reader skips.
          written += linesWithin(sizes, written, done);
          if (error) throw error;
        }
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (count === 0) {
        path = place.rotated;
        await rename(place.current, place.rotated);
      }
    }
    return { written };
  } catch (error) {
    return { written, problem: { path, what: errorText(error) } };
  }
};

/** Writes all of `bytes` (a write may take part of them): how many were written, and the error that stopped it. */
async function writeAll(handle: FileHandle, bytes: Buffer): Promise<{ done: number; error?: unknown }> {
  let done = 0;
  try {
    while (done < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, done);
      if (bytesWritten <= 0) return { done, error: new Error("the file took no bytes") };
      done += bytesWritten;
    }
    return { done };
  } catch (error) {
    return { done, error };
  }
}

/** How many lines from `from` fit whole in `bytes` bytes. */
function linesWithin(sizes: readonly number[], from: number, bytes: number): number {
  let count = 0;
  for (let used = 0; from + count < sizes.length && used + sizes[from + count]! <= bytes; count++) {
    used += sizes[from + count]!;
  }
  return count;
}

/** Why the record's folder is not this user's alone; undefined when it is. */
function untrustedFolder(found: Stats): string | undefined {
  if (!found.isDirectory()) return "it is not a folder";
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // Windows: the folder is in the user's profile.
  if (found.uid !== uid) return "another user owns it";
  if ((found.mode & 0o022) !== 0) return "other users may write to it";
  return undefined;
}

/** Why the record's file is not written to; undefined when it is a regular file this user owns. */
function untrustedFile(found: Stats): string | undefined {
  if (!found.isFile()) return "it is not a regular file";
  const uid = process.getuid?.();
  if (uid !== undefined && found.uid !== uid) return "another user owns it";
  return undefined;
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "ELOOP") return "it is a symbolic link, which the record does not follow";
  return (error as Error)?.message ?? String(error);
}
