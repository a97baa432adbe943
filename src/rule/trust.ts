/**
 * The trust boundary, in one place (docs/security.md).
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

/** Whose folders a rule's references may lead into, as warnings name them: its trust's, or, for a pack's rule, its pack. */
export type ReferenceReach = Trust | "pack";

/**
 * Trust, most trusted first. What a rule forbids is never taken away by a
 * rule less trusted than it: shadowing by name decides which text is
 * delivered, not which forbids hold (`formats/load.ts`); checks run the most
 * trusted rules first, each trust with its own share of the time
 * (`engine/check-call.ts`).
 */
export const TRUST_ORDER: readonly Trust[] = ["managed", "user", "repository"];

/** A rule's trust: as discovery found it, else by its scope (a global rule is the user's, a project rule the repository's). */
export const trustOf = (rule: { scope: "global" | "project"; trust?: Trust }): Trust =>
  rule.trust ?? (rule.scope === "global" ? "user" : "repository");

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

// Whether a managed path may be trusted: the managed tier outranks the user, so a path anyone could
// write to would let anyone plant rules the user cannot switch off. Pure: the caller gives the stat.

/** What a stat says of a path's owner and mode. */
interface OwnerFacts {
  uid: number;
  gid: number;
  mode: number;
}

const WRITABLE_BY_OTHERS = 0o002;
const WRITABLE_BY_GROUP = 0o020;

/**
 * Who may own a managed path: root, and the user the plugin runs as (an
 * administrator deploying to their own account; nobody else can write there).
 * None on Windows, whose stat reports no owner: there the check is skipped.
 */
export function managedOwners(platform: NodeJS.Platform, uid: number | undefined): number[] | undefined {
  if (platform === "win32" || uid === undefined) return undefined;
  return uid === 0 ? [0] : [0, uid];
}

/** Why `path` may not be trusted as managed, or undefined when it may. */
export function ownerProblem(
  path: string,
  facts: OwnerFacts,
  owners: readonly number[] | undefined,
): string | undefined {
  if (!owners) return undefined;
  if (!owners.includes(facts.uid))
    return `${path} is owned by user ${facts.uid}, not by root${owners.length > 1 ? ` or user ${owners[1]}` : ""}`;
  const mode = (facts.mode & 0o777).toString(8);
  if ((facts.mode & WRITABLE_BY_OTHERS) !== 0) return `${path} is writable by every user (mode ${mode})`;
  // A group other than root's may hold any number of users.
  if ((facts.mode & WRITABLE_BY_GROUP) !== 0 && facts.gid !== 0)
    return `${path} is writable by group ${facts.gid} (mode ${mode})`;
  return undefined;
}
