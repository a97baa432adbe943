/**
 * The trust boundary, in one place (README, "Security").
 *
 * A repository is untrusted input: the plugin reads rule files from every
 * repository a user opens. Rule files and folders found in the repository
 * are read only when their real path (symlinks resolved) lies inside the
 * repository's real root, and their references resolve only inside it. The
 * user's own folders (global rules, `~/.cursor/rules`, …, and `extraDirs`
 * named in the user's own OpenCode config) are the user's: symlinks there
 * are followed, and their references may reach the user's rules and config
 * folders.
 */
import { isAbsolute, sep } from "node:path";
import { relativePath } from "./locations.js";

/** Whose a rule file is: the repository's (untrusted) or the user's. */
export type Trust = "repository" | "user";

/** Where files of one trust domain may be read from. */
export interface Boundary {
  trust: Trust;
  /** The repository's real root (symlinks resolved); files of the repository must lie inside it. */
  realRoot: string;
}

/** Is `path` one of `folders` or inside one? Pure path arithmetic, no file system. */
export function inside(path: string, folders: readonly string[]): boolean {
  return folders.some((folder) => insideOne(path, folder));
}

function insideOne(path: string, folder: string): boolean {
  const rel = relativePath(folder, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** May a file or folder whose real path is `realPath` be read under this boundary? */
export function allowsRealPath(boundary: Boundary, realPath: string): boolean {
  return boundary.trust === "user" || inside(realPath, [boundary.realRoot]);
}
