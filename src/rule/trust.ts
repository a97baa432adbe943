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
import { relativePath } from "./relative-path.js";

/**
 * Whose a rule file is: the organisation's (the managed folder and packs an
 * administrator deploys), the user's, or the repository's (untrusted).
 */
export type Trust = "managed" | "user" | "repository";

/**
 * Trust, most trusted first. What a rule forbids is never taken away by a
 * rule less trusted than it: shadowing by name decides which text is
 * delivered, not which forbids hold (`formats/load.ts`); checks run the most
 * trusted rules first, each trust with its own share of the time
 * (`engine/check-call.ts`).
 */
export const TRUST_ORDER: readonly Trust[] = ["managed", "user", "repository"];

/** A rule's trust: as discovery found it, else by its scope (a global rule is the user's, a project rule the repository's). */
export const trustOf = (rule: { scope: "global" | "project"; trust?: Trust }): Trust => rule.trust ?? (rule.scope === "global" ? "user" : "repository");

/** Is `a` more trusted than `b`? */
export const moreTrusted = (a: Trust, b: Trust): boolean => TRUST_ORDER.indexOf(a) < TRUST_ORDER.indexOf(b);

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
  return boundary.trust !== "repository" || inside(realPath, [boundary.realRoot]);
}
