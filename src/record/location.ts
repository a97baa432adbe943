/**
 * Where the record is kept: `rulebook/` in OpenCode's state folder
 * (`$XDG_STATE_HOME/opencode`, else `~/.local/state/opencode`), one file per
 * project, named by its root folder, and the file it is rotated to.
 */
import { createHash } from "node:crypto";
import { basename, join } from "node:path";

/** The record's file name ending; the rotated file ends in `.old` before it. */
export const RECORD_EXTENSION = ".jsonl";
const ROTATED = ".old";

export function recordFolder(env: Record<string, string | undefined>, home: string): string {
  return join(env.XDG_STATE_HOME || join(home, ".local", "state"), "opencode", "rulebook");
}

/** The project's files, newest last: the one rotated away, and the one written now. */
export function recordFiles(folder: string, projectRoot: string): { rotated: string; current: string } {
  const key = recordKey(projectRoot);
  return {
    rotated: join(folder, `${key}${ROTATED}${RECORD_EXTENSION}`),
    current: join(folder, key + RECORD_EXTENSION),
  };
}

/** `my-app-3f2c1ab09e4d5c6b`: the folder's name (for a person listing the folder) and a hash of its whole path. */
function recordKey(projectRoot: string): string {
  const name = basename(projectRoot)
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .slice(0, 40);
  return `${name || "root"}-${createHash("sha256").update(projectRoot).digest("hex").slice(0, 16)}`;
}

/** Whether a file in the folder is a record (current or rotated), for `--all`. */
export function isRecordFile(name: string): boolean {
  return name.endsWith(RECORD_EXTENSION);
}
