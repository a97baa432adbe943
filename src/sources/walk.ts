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
 * repository; a walk of the project's tree follows none.
 */
import type { Dirent } from "node:fs";
import { ruleWarning, type RuleWarning, type WarningFacts } from "../rule/warnings.js";
import { errorCode, errorReason, type RuleFs } from "./fs.js";
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
}

const RULE_FILE = /\.(md|mdc)$/i;

type Visit = Required<Pick<WalkOptions, "accept" | "enter" | "budget" | "followLinks" | "maxDepth">> &
  Pick<WalkOptions, "boundary" | "onFolder"> & {
    fs: RuleFs;
    /** Real paths of the folders entered in this walk. */
    visited: Set<string>;
    walk: Walk;
  };

/** A folder to read, or an entry of a folder read (looked at already), with the real paths of the folders above it. */
type Step =
  | { folder: true; path: string; relPath: string; real: string; chain: string[] }
  | { folder: false; path: string; dir: string; relPath: string; name: string; looked: Looked; chain: string[] };

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
    budget: options.budget ?? walkBudget(),
    visited: new Set(),
    walk,
  };
  // Depth first: a stack, each folder's steps pushed in reverse so they come off in name order. Breadth first: a queue.
  const pending: Step[] = [{ folder: true, path: root, relPath: "", real, chain: [] }];
  let head = 0;
  while (!state.budget.exhausted) {
    const step = options.order === "breadth" ? pending[head++] : pending.pop();
    if (!step) break;
    const next = step.folder ? await readFolder(step, state) : takeEntry(step, state);
    pending.push(...(options.order === "breadth" ? next : next.reverse()));
  }
  return walk;
}

/**
 * The project's own tree, shallow folders first: symlinks, hidden folders and
 * SKIPPED_FOLDERS are not entered, and no file is returned: `onFolder` sees
 * each folder's entries.
 */
export function walkProjectTree(root: string, fs: RuleFs, options: Pick<WalkOptions, "budget" | "maxDepth" | "onFolder">): Promise<Walk> {
  return walkFolder(root, fs, { ...options, accept: () => false, enter: (name) => !SKIPPED_FOLDERS.has(name), followLinks: false, order: "breadth" });
}

async function readFolder({ path: dir, relPath: rel, real, chain }: Extract<Step, { folder: true }>, state: Visit): Promise<Step[]> {
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
  let entries;
  try {
    entries = await state.fs.readdir(dir);
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
  // Only a symlink needs resolving: a plain entry's real path is its folder's real path and its name.
  const visible = entries.filter(
    (entry) => !entry.name.startsWith(".") && (entry.isDirectory() ? state.enter(entry.name) : entry.isSymbolicLink() ? state.followLinks : state.accept(entry.name)),
  );
  const inDir = childPaths(dir);
  const inReal = childPaths(real);
  const paths = visible.map((entry) => inDir(entry.name));
  const looked = await Promise.all(visible.map((entry, index) => lookAt(paths[index] as string, entry, inReal(entry.name), state)));
  return visible.map((entry, index) => ({
    folder: false,
    path: paths[index] as string,
    dir,
    relPath: rel === "" ? entry.name : `${rel}/${entry.name}`,
    name: entry.name,
    looked: looked[index] as Looked,
    chain: below,
  }));
}

/** What an entry of a folder read becomes: a folder to read, a file of the walk, a warning, or nothing. */
function takeEntry({ path, dir, relPath, name, looked: found, chain }: Extract<Step, { folder: false }>, state: Visit): Step[] {
  const isFolder = found.kind === "folder" || ((found.kind === "error" || found.kind === "outside") && found.folder);
  if (!(isFolder ? state.enter(name) : state.accept(name))) return [];
  if (found.kind === "folder") return [{ folder: true, path, relPath, real: found.realPath, chain }];
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

/** `plainReal`: the entry's real path unless it is a symlink (its folder's real path and its name). */
async function lookAt(path: string, entry: { isDirectory(): boolean; isSymbolicLink(): boolean }, plainReal: string, state: Visit): Promise<Looked> {
  if (entry.isDirectory()) return { kind: "folder", realPath: plainReal };
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
