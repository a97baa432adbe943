/**
 * The one folder walker: rule folders (every `.md` / `.mdc` file in a folder
 * and its sub-folders, in name order), and the project's own tree (the nested
 * Cursor search, `check`'s list of project files). Hidden files and folders
 * are never walked. Only regular files are returned: a link to a FIFO or a
 * device is never opened.
 *
 * Bounded whatever the tree: each real folder is entered once per walk (a
 * symlink loop or a "diamond" of folder links ends there, with a warning),
 * nesting stops at `maxDepth`, and the folders, entries and files a walk may
 * read are counted in a budget (one source's walks share one). Under a
 * repository's boundary a symlink is followed only to a target inside the
 * repository; a walk of the project's tree follows none, and may skip what
 * git ignores.
 */
import type { Dirent } from "node:fs";
import { ruleWarning, type RuleWarning, type WarningFacts } from "../rule/warnings.js";
import { errorCode, errorReason, type RuleFs } from "./fs.js";
import { type IgnoreChain, ignoresIn, inForceBelow } from "./gitignore.js";
import { childPaths } from "./locations.js";
import { allowsRealPath, type Boundary } from "./trust.js";

export interface WalkedFile {
  path: string;
  /** Relative to the folder walked, POSIX separators: `sub/name.md`. */
  relPath: string;
  size: number;
}

export interface Walk {
  files: WalkedFile[];
  warnings: RuleWarning[];
  /** The folder itself lies outside the boundary: nothing in it was read. */
  refused?: boolean;
}

/** Deep enough for any real layout; a guard against pathological trees. */
export const MAX_DEPTH = 64;

/** What one source may walk in all: far above real rule folders, far below a whole disk. */
export const WALK_LIMITS = { folders: 5_000, entries: 200_000, files: 20_000 };
export type WalkLimits = { [K in keyof typeof WALK_LIMITS]: number };

/** Warnings one source's walks report one by one; past them, one line says more were found. */
export const MAX_WALK_WARNINGS = 50;

/**
 * Folders a walk of the project's own tree does not enter: dependencies and
 * build output (hidden folders, `.git` among them, are never entered). A
 * rules folder's sub-folders are all rules, whatever their names.
 */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(["node_modules", "dist", "build", "out", "target", "vendor", "coverage", "__pycache__", "venv"]);

/** The work done (folders, entries, files, warnings) against its limits; once one is passed, every walk sharing the budget stops. */
export type WalkBudget = WalkLimits & { warnings: number; exhausted: boolean; limits: WalkLimits };

export function walkBudget(limits: WalkLimits = WALK_LIMITS): WalkBudget {
  return { folders: 0, entries: 0, files: 0, warnings: 0, exhausted: false, limits };
}

export interface WalkOptions {
  /** Which files are returned; default: `.md` and `.mdc` files. */
  accept?: (name: string) => boolean;
  /** Which sub-folders are entered; default: all. */
  enter?: (name: string) => boolean;
  /** Absent: every symlink is followed (the user's own folders). */
  boundary?: Boundary;
  budget?: WalkBudget;
  /** False: symlinks are passed over, neither entered nor returned (a walk of the project's tree). Default: true. */
  followLinks?: boolean;
  /** Folders this many levels below the root are not read; default MAX_DEPTH. */
  maxDepth?: number;
  /** Depth first (the default: in name order, a sub-folder's files where it stands) or breadth first (shallow folders first). */
  order?: "depth" | "breadth";
  /** Sees each folder read (`relPath` from the root, POSIX), with all its entries (hidden ones too) in name order; returning false ends the walk. */
  onFolder?: (dir: string, relPath: string, entries: readonly Dirent[]) => unknown;
  /**
   * Present: sub-folders git ignores are not entered. The ignore files in
   * force at the root (`ignoresAbove`); each folder's own `.gitignore` is
   * read with its entries.
   */
  gitignore?: IgnoreChain;
}

const RULE_FILE = /\.(md|mdc)$/i;

type Visit = Required<Pick<WalkOptions, "accept" | "enter" | "budget" | "followLinks" | "maxDepth">> &
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

/** A folder to read, or an entry of a folder read (looked at already), with the real paths of the folders above it and the ignore files in force. */
type Step =
  | { folder: true; path: string; relPath: string; real: string; chain: string[]; ignores?: IgnoreChain }
  | { folder: false; path: string; dir: string; relPath: string; name: string; looked: Looked; chain: string[]; ignores?: IgnoreChain };

export async function walkFolder(root: string, fs: RuleFs, options: WalkOptions = {}): Promise<Walk> {
  const walk: Walk = { files: [], warnings: [] };
  const warn = (facts: WarningFacts) => walk.warnings.push(ruleWarning(root, facts));
  let rootStat;
  try {
    rootStat = await fs.stat(root);
  } catch (error) {
    if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") warn({ code: "folder-unreadable", reason: errorReason(error) });
    return walk;
  }
  if (!rootStat.isDirectory()) {
    warn({ code: "folder-not-a-folder" });
    return walk;
  }
  let real: string;
  try {
    real = await fs.realpath(root);
  } catch (error) {
    warn({ code: "folder-unresolvable", reason: errorReason(error) });
    return walk;
  }
  if (options.boundary && !allowsRealPath(options.boundary, real)) {
    warn({ code: "outside-repository", realPath: real, realRoot: options.boundary.realRoot, what: "folder" });
    return { ...walk, refused: true };
  }
  const state: Visit = {
    fs,
    accept: options.accept ?? ((name) => RULE_FILE.test(name)),
    enter: options.enter ?? (() => true),
    followLinks: options.followLinks ?? true,
    maxDepth: options.maxDepth ?? MAX_DEPTH,
    onFolder: options.onFolder,
    boundary: options.boundary,
    gitignore: options.gitignore !== undefined,
    budget: options.budget ?? walkBudget(),
    visited: new Set(),
    listings: new Map(),
    walk,
  };
  // Depth first: a stack, each folder's steps pushed in reverse so they come off in name order. Breadth first: a queue.
  const pending: Step[] = [{ folder: true, path: root, relPath: "", real, chain: [], ignores: options.gitignore }];
  let head = 0;
  while (!state.budget.exhausted) {
    const step = options.order === "breadth" ? pending[head++] : pending.pop();
    if (!step) break;
    if (options.order === "breadth" && step.folder) listAhead(pending, head, state);
    const next = step.folder ? await readFolder(step, state) : takeEntry(step, state);
    pending.push(...(options.order === "breadth" ? next : next.reverse()));
  }
  return walk;
}

/** How many of the next folders a breadth-first walk lists while it reads one, and how far ahead it looks for them. */
const LIST_AHEAD = { folders: 32, steps: 128 };

/**
 * Starts listing the next folders of a breadth-first walk, so the file
 * system works on several at once (a large project's tree); they are still
 * read one by one, in order, within the budget, as without it.
 */
function listAhead(pending: readonly Step[], from: number, state: Visit): void {
  let folders = 0;
  for (let i = from; i < pending.length && i < from + LIST_AHEAD.steps && folders < LIST_AHEAD.folders; i++) {
    const step = pending[i] as Step;
    if (!step.folder) continue;
    folders++;
    if (state.listings.has(step.path) || step.chain.length >= state.maxDepth) continue;
    const listing = state.fs.readdir(step.path);
    // Its error is reported when the folder is read; a walk that stops first never reads it.
    listing.catch(() => undefined);
    state.listings.set(step.path, listing);
  }
}

/**
 * The project's own tree, shallow folders first: symlinks, hidden folders and
 * SKIPPED_FOLDERS are not entered (nor, with `gitignore`, what git ignores),
 * and no file is returned: `onFolder` sees each folder's entries.
 */
export function walkProjectTree(root: string, fs: RuleFs, options: Pick<WalkOptions, "budget" | "maxDepth" | "onFolder" | "gitignore">): Promise<Walk> {
  return walkFolder(root, fs, { ...options, accept: () => false, enter: (name) => !SKIPPED_FOLDERS.has(name), followLinks: false, order: "breadth" });
}

async function readFolder({ path: dir, relPath: rel, real, chain, ignores: above }: Extract<Step, { folder: true }>, state: Visit): Promise<Step[]> {
  const { walk, budget } = state;
  const warn = (facts: WarningFacts): Step[] => {
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
  const visible = entries.filter(
    (entry) => !entry.name.startsWith(".") && (entry.isDirectory() ? entered(entry.name) : entry.isSymbolicLink() ? state.followLinks : state.accept(entry.name)),
  );
  const inReal = childPaths(real);
  const relOf = (name: string) => (rel === "" ? name : `${rel}/${name}`);
  // Only a symlink needs resolving: a plain entry's real path is its folder's real path and its name.
  // A plain folder is known from its entry alone: it is a folder to read at once, no promise to wait for.
  const others = visible.filter((entry) => !entry.isDirectory());
  const looked = others.length === 0 ? [] : await Promise.all(others.map((entry) => lookAt(inDir(entry.name), entry, inReal(entry.name), state)));
  let next = 0;
  return visible.map((entry): Step => {
    const { name } = entry;
    if (entry.isDirectory()) return { folder: true, path: inDir(name), relPath: relOf(name), real: inReal(name), chain: below, ignores: ignoresBelow.get(name) ?? ignores };
    return { folder: false, path: inDir(name), dir, relPath: relOf(name), name, looked: looked[next++] as Looked, chain: below, ignores };
  });
}

/** What an entry of a folder read becomes: a folder to read, a file of the walk, a warning, or nothing. */
function takeEntry({ path, dir, relPath, name, looked: found, chain, ignores }: Extract<Step, { folder: false }>, state: Visit): Step[] {
  const isFolder = found.kind === "folder" || ((found.kind === "error" || found.kind === "outside") && found.folder);
  if (!(isFolder ? state.enter(name) : state.accept(name))) return [];
  if (found.kind === "folder") return [{ folder: true, path, relPath, real: found.realPath, chain, ignores }];
  if (found.kind === "error") report(state, ruleWarning(path, { code: "path-unreadable", reason: errorReason(found.error) }));
  else if (found.kind === "outside")
    report(state, ruleWarning(path, { code: "outside-repository", realPath: found.realPath, realRoot: state.boundary?.realRoot ?? "", what: found.folder ? "folder" : "file" }));
  else if (found.kind === "other") report(state, ruleWarning(path, { code: "not-regular-file" }));
  else if (spend(state.budget, "files", 1, dir, state.walk)) state.walk.files.push({ path, relPath, size: found.size });
  return [];
}

type Looked =
  | { kind: "folder"; realPath: string }
  | { kind: "file"; size: number }
  | { kind: "other" }
  | { kind: "outside"; realPath: string; folder: boolean }
  | { kind: "error"; error: unknown; folder: boolean };

/** An entry that is not a plain folder. `plainReal`: the entry's real path unless it is a symlink (its folder's real path and its name). */
async function lookAt(path: string, entry: { isSymbolicLink(): boolean }, plainReal: string, state: Visit): Promise<Looked> {
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
  if (state.boundary && !allowsRealPath(state.boundary, realPath)) return { kind: "outside", realPath, folder: stat.isDirectory() };
  if (stat.isDirectory()) return { kind: "folder", realPath };
  return stat.isFile() ? { kind: "file", size: stat.size } : { kind: "other" };
}

/** A warning of the walk, while the budget has reported fewer than MAX_WALK_WARNINGS; then one line for the rest. */
function report(state: Visit, warning: RuleWarning): void {
  const count = ++state.budget.warnings;
  if (count <= MAX_WALK_WARNINGS) state.walk.warnings.push(warning);
  else if (count === MAX_WALK_WARNINGS + 1) state.walk.warnings.push(ruleWarning(warning.path, { code: "too-many-warnings", limit: MAX_WALK_WARNINGS }));
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
