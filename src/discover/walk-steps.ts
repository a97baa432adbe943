/**
 * One walk's state and its steps: reading a folder, taking each of its
 * entries (an entry that is not a plain folder looked at first), and counting
 * the work against the budget.
 */
import type { Dirent } from "node:fs";
import { ruleWarning, type RuleWarning, type WarningFacts } from "../rule/warnings.js";
import { errorReason, fileVersion, type FileVersion, type RuleFs } from "./fs.js";
import { type IgnoreChain, ignoresIn, inForceBelow } from "./gitignore.js";
import { childPaths } from "./locations.js";
import { allowsRealPath } from "../rule/trust.js";
import { MAX_WALK_WARNINGS, type WalkBudget, type WalkLimits } from "./walk-limits.js";
import type { Walk, WalkOptions } from "./walk-options.js";

export type Visit = Required<
  Pick<WalkOptions, "accept" | "enter" | "budget" | "followLinks" | "maxDepth" | "hiddenFolders">
> &
  Pick<WalkOptions, "boundary" | "onFolder"> & {
    /** Whether the walk skips what git ignores. */
    gitignore: boolean;
    fs: RuleFs;
    /** Real paths of the folders entered in this walk. */
    visited: Set<string>;
    /** Folders listed ahead (breadth first), by path. */
    listings: Map<string, Promise<Dirent[]>>;
    walk: Walk;
  };

/**
 * A folder to read, or an entry of a folder read (looked at already), with the real paths of the folders above it and
 * the ignore files in force.
 */
export type WalkStep =
  | { folder: true; path: string; relPath: string; real: string; chain: string[]; ignores?: IgnoreChain }
  | {
      folder: false;
      path: string;
      dir: string;
      relPath: string;
      name: string;
      looked: Looked;
      chain: string[];
      ignores?: IgnoreChain;
    };

export async function readFolder(
  { path: dir, relPath: rel, real, chain, ignores: above }: Extract<WalkStep, { folder: true }>,
  state: Visit,
): Promise<WalkStep[]> {
  const { walk, budget } = state;
  const warn = (facts: WarningFacts): WalkStep[] => {
    report(state, ruleWarning(dir, facts));
    return [];
  };
  if (chain.includes(real)) return warn({ code: "symlink-loop", realPath: real });
  if (state.visited.has(real)) return warn({ code: "folder-already-read", realPath: real });
  if (chain.length >= state.maxDepth) return warn({ code: "folder-too-deep", maxDepth: state.maxDepth });
  if (!spend(budget, "folders", 1, dir, walk)) return [];
  state.visited.add(real);
  const listed = state.listings.get(dir);
  state.listings.delete(dir);
  let entries;
  try {
    entries = await (listed ?? state.fs.readdir(dir));
  } catch (error) {
    return warn({ code: "subfolder-unreadable", reason: errorReason(error) });
  }
  if (!spend(budget, "entries", entries.length, dir, walk)) return [];
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (state.onFolder?.(dir, rel, entries) === false) {
    budget.exhausted = true;
    return [];
  }
  const below = [...chain, real];
  const inDir = childPaths(dir);
  const ignores = state.gitignore ? await ignoresIn(state.fs, dir, entries, above ?? []) : undefined;
  /** The ignore files in force in each sub-folder entered, by name. */
  const ignoresBelow = new Map<string, IgnoreChain>();
  const entered = (name: string) => {
    if (!state.enter(name)) return false;
    if (!ignores) return true;
    const inForce = inForceBelow(ignores, inDir(name));
    if (inForce) ignoresBelow.set(name, inForce);
    return inForce !== undefined;
  };
  const visible = entries.filter((entry) => {
    const hidden = entry.name.startsWith(".");
    if (entry.isDirectory()) return (!hidden || state.hiddenFolders) && entered(entry.name);
    return !hidden && (entry.isSymbolicLink() ? state.followLinks : state.accept(entry.name));
  });
  const inReal = childPaths(real);
  const relOf = (name: string) => (rel === "" ? name : `${rel}/${name}`);
  // Only a symlink needs resolving: a plain entry's real path is its folder's real path and its name.
  // A plain folder is known from its entry alone: it is a folder to read at once, no promise to wait for.
  const others = visible.filter((entry) => !entry.isDirectory());
  const looked =
    others.length === 0
      ? []
      : await Promise.all(others.map((entry) => lookAt(inDir(entry.name), entry, inReal(entry.name), state)));
  let next = 0;
  return visible.map((entry): WalkStep => {
    const { name } = entry;
    if (entry.isDirectory())
      return {
        folder: true,
        path: inDir(name),
        relPath: relOf(name),
        real: inReal(name),
        chain: below,
        ignores: ignoresBelow.get(name) ?? ignores,
      };
    return {
      folder: false,
      path: inDir(name),
      dir,
      relPath: relOf(name),
      name,
      looked: looked[next++] as Looked,
      chain: below,
      ignores,
    };
  });
}

/** What an entry of a folder read becomes: a folder to read, a file of the walk, a warning, or nothing. */
export function takeEntry(
  { path, dir, relPath, name, looked: found, chain, ignores }: Extract<WalkStep, { folder: false }>,
  state: Visit,
): WalkStep[] {
  const isFolder = found.kind === "folder" || ((found.kind === "error" || found.kind === "outside") && found.folder);
  if (!(isFolder ? state.enter(name) : state.accept(name))) return [];
  if (found.kind === "folder") return [{ folder: true, path, relPath, real: found.realPath, chain, ignores }];
  if (found.kind === "error")
    report(state, ruleWarning(path, { code: "path-unreadable", reason: errorReason(found.error) }));
  else if (found.kind === "outside")
    report(
      state,
      ruleWarning(path, {
        code: "outside-repository",
        realPath: found.realPath,
        realRoot: state.boundary?.realRoot ?? "",
        what: found.folder ? "folder" : "file",
      }),
    );
  else if (found.kind === "other") report(state, ruleWarning(path, { code: "not-regular-file" }));
  else if (spend(state.budget, "files", 1, dir, state.walk))
    state.walk.files.push({ path, relPath, size: found.size, version: found.version });
  return [];
}

type Looked =
  | { kind: "folder"; realPath: string }
  | { kind: "file"; size: number; version?: FileVersion }
  | { kind: "other" }
  | { kind: "outside"; realPath: string; folder: boolean }
  | { kind: "error"; error: unknown; folder: boolean };

/**
 * An entry that is not a plain folder. `plainReal`: the entry's real path unless it is a symlink (its folder's real
 * path and its name).
 */
async function lookAt(
  path: string,
  entry: { isSymbolicLink(): boolean },
  plainReal: string,
  state: Visit,
): Promise<Looked> {
  let stat;
  try {
    stat = await state.fs.stat(path);
  } catch (error) {
    return { kind: "error", error, folder: false };
  }
  let realPath = plainReal;
  try {
    if (entry.isSymbolicLink()) realPath = await state.fs.realpath(path);
  } catch (error) {
    return { kind: "error", error, folder: stat.isDirectory() };
  }
  // A plain entry lies in its folder, whose real path the walk already knows is inside: only a link can lead out.
  if (state.boundary && entry.isSymbolicLink() && !allowsRealPath(state.boundary, realPath))
    return { kind: "outside", realPath, folder: stat.isDirectory() };
  if (stat.isDirectory()) return { kind: "folder", realPath };
  return stat.isFile() ? { kind: "file", size: stat.size, version: fileVersion(stat) } : { kind: "other" };
}

/** A warning of the walk, while the budget has reported fewer than MAX_WALK_WARNINGS; then one line for the rest. */
function report(state: Visit, warning: RuleWarning): void {
  const count = ++state.budget.warnings;
  if (count <= MAX_WALK_WARNINGS) state.walk.warnings.push(warning);
  else if (count === MAX_WALK_WARNINGS + 1)
    state.walk.warnings.push(ruleWarning(warning.path, { code: "too-many-warnings", limit: MAX_WALK_WARNINGS }));
}

/** Counts work against the budget; false (with one warning per budget) once a limit is passed. */
function spend(budget: WalkBudget, what: keyof WalkLimits, amount: number, where: string, walk: Walk): boolean {
  if (budget.exhausted) return false;
  budget[what] += amount;
  if (budget[what] <= budget.limits[what]) return true;
  budget.exhausted = true;
  walk.warnings.push(ruleWarning(where, { code: "walk-limit", limit: budget.limits[what], what }));
  return false;
}
