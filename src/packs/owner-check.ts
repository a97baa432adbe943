/**
 * Whether a managed path may be trusted: the managed tier outranks the user,
 * so a folder anyone could write to would let anyone plant rules the user
 * cannot switch off. Pure: the caller gives the stat and who may own it.
 */

/** What a stat says of a path's owner and mode. */
export interface OwnerFacts {
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
export function ownerProblem(path: string, facts: OwnerFacts, owners: readonly number[] | undefined): string | undefined {
  if (!owners) return undefined;
  if (!owners.includes(facts.uid)) return `${path} is owned by user ${facts.uid}, not by root${owners.length > 1 ? ` or user ${owners[1]}` : ""}`;
  const mode = (facts.mode & 0o777).toString(8);
  if ((facts.mode & WRITABLE_BY_OTHERS) !== 0) return `${path} is writable by every user (mode ${mode})`;
  // A group other than root's may hold any number of users.
  if ((facts.mode & WRITABLE_BY_GROUP) !== 0 && facts.gid !== 0) return `${path} is writable by group ${facts.gid} (mode ${mode})`;
  return undefined;
}
