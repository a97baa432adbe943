/**
 * The start of a file, for a command: its first `bytes` as UTF-8 text; undefined when it cannot be read (missing, a
 * folder).
 */
import { closeSync, openSync, readSync } from "node:fs";

export function readStart(path: string, bytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.toString("utf8", 0, readSync(fd, buffer, 0, bytes, 0));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
