/**
 * Walks one rules folder: every `.md` / `.mdc` file in it and its sub-folders,
 * in name order. Hidden files and folders are skipped. Only regular files are
 * returned: a link to a FIFO or a device is never opened.
 *
 * Bounded whatever the tree: each real folder is entered once per walk (a
 * symlink loop or a "diamond" of folder links ends there, with a warning),
 * nesting stops at MAX_DEPTH, and the folders, entries and files one source
 * may walk are counted in a budget shared by its walks. Under a repository's
 * boundary a symlink is followed only to a target inside the repository.
 */
import { join } from "node:path";
import type { RuleWarning } from "../rule/rule.js";
import { errorCode, errorReason, NOT_A_REGULAR_FILE, type RuleFs } from "./fs.js";
import { allowsRealPath, outsideRepositoryMessage, type Boundary } from "./trust.js";

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

/** Warnings one source's walks report one by one; past them, one line says more were found. */
export const MAX_WALK_WARNINGS = 50;

/** The work one source has done; once a limit is hit, its walks stop. */
export interface WalkBudget {
  folders: number;
  entries: number;
  files: number;
  warnings: number;
  exhausted: boolean;
}

export function walkBudget(): WalkBudget {
  return { folders: 0, entries: 0, files: 0, warnings: 0, exhausted: false };
}

export interface WalkOptions {
  accept?: (name: string) => boolean;
  /** Absent: every symlink is followed (the user's own folders). */
  boundary?: Boundary;
  budget?: WalkBudget;
}

const RULE_FILE = /\.(md|mdc)$/i;

interface Visit {
  fs: RuleFs;
  accept: (name: string) => boolean;
  boundary?: Boundary;
  budget: WalkBudget;
  /** Real paths of the folders entered in this walk. */
  visited: Set<string>;
  walk: Walk;
}

export async function walkRuleFolder(root: string, fs: RuleFs, options: WalkOptions = {}): Promise<Walk> {
  const walk: Walk = { files: [], warnings: [] };
  let rootStat;
  try {
    rootStat = await fs.stat(root);
  } catch (error) {
    if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") {
      walk.warnings.push({ path: root, message: `rules folder cannot be read (${errorReason(error)}); its rules were not loaded` });
    }
    return walk;
  }
  if (!rootStat.isDirectory()) {
    walk.warnings.push({ path: root, message: "rules folder is not a folder; it was ignored" });
    return walk;
  }
  let real: string;
  try {
    real = await fs.realpath(root);
  } catch (error) {
    walk.warnings.push({ path: root, message: `rules folder cannot be resolved (${errorReason(error)}); its rules were not loaded` });
    return walk;
  }
  if (options.boundary && !allowsRealPath(options.boundary, real)) {
    walk.warnings.push({ path: root, message: outsideRepositoryMessage(real, options.boundary.realRoot, "folder") });
    return { ...walk, refused: true };
  }
  const state: Visit = { fs, accept: options.accept ?? ((name) => RULE_FILE.test(name)), boundary: options.boundary, budget: options.budget ?? walkBudget(), visited: new Set(), walk };
  await visit(root, "", real, [], state);
  return walk;
}

async function visit(dir: string, rel: string, real: string, ancestors: string[], state: Visit): Promise<void> {
  const { walk, budget } = state;
  const warn = (path: string, message: string) => report(state, { path, message });
  if (ancestors.includes(real)) return warn(dir, `symlink loop: this folder leads back to ${real}; the walk of this branch stopped here`);
  if (state.visited.has(real)) return warn(dir, `this folder is ${real}, already read through another path; not read again`);
  if (ancestors.length >= MAX_DEPTH) return warn(dir, `folders nested deeper than ${MAX_DEPTH} levels; this branch was not read`);
  if (!spend(budget, "folders", 1, dir, walk)) return;
  state.visited.add(real);
  let entries;
  try {
    entries = await state.fs.readdir(dir);
  } catch (error) {
    return warn(dir, `folder cannot be read (${errorReason(error)}); its rules were not loaded`);
  }
  if (!spend(budget, "entries", entries.length, dir, walk)) return;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const chain = [...ancestors, real];
  // Only a symlink needs resolving: a plain entry's real path is its folder's real path and its name.
  const visible = entries.filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink() || state.accept(entry.name)));
  const looked = await Promise.all(visible.map((entry) => lookAt(join(dir, entry.name), entry, real, state)));
  for (const [index, entry] of visible.entries()) {
    if (budget.exhausted) return;
    const path = join(dir, entry.name);
    const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`;
    const found = looked[index] as Looked;
    if (found.kind === "error") {
      if (found.folder || state.accept(entry.name)) warn(path, `cannot be read (${errorReason(found.error)}); skipped`);
    } else if (found.kind === "outside") {
      if (found.folder || state.accept(entry.name)) warn(path, outsideRepositoryMessage(found.realPath, state.boundary?.realRoot ?? "", found.folder ? "folder" : "file"));
    } else if (found.kind === "folder") await visit(path, relPath, found.realPath, chain, state);
    else if (!state.accept(entry.name)) continue;
    else if (found.kind === "other") warn(path, NOT_A_REGULAR_FILE);
    else if (spend(budget, "files", 1, dir, walk)) walk.files.push({ path, relPath, size: found.size });
  }
}

type Looked =
  | { kind: "folder"; realPath: string }
  | { kind: "file"; size: number }
  | { kind: "other" }
  | { kind: "outside"; realPath: string; folder: boolean }
  | { kind: "error"; error: unknown; folder: boolean };

async function lookAt(path: string, entry: { name: string; isDirectory(): boolean; isSymbolicLink(): boolean }, folderReal: string, state: Visit): Promise<Looked> {
  if (entry.isDirectory()) return { kind: "folder", realPath: join(folderReal, entry.name) };
  let stat;
  try {
    stat = await state.fs.stat(path);
  } catch (error) {
    return { kind: "error", error, folder: false };
  }
  let realPath = join(folderReal, entry.name);
  try {
    if (entry.isSymbolicLink()) realPath = await state.fs.realpath(path);
  } catch (error) {
    return { kind: "error", error, folder: stat.isDirectory() };
  }
  if (state.boundary && !allowsRealPath(state.boundary, realPath)) return { kind: "outside", realPath, folder: stat.isDirectory() };
  if (stat.isDirectory()) return { kind: "folder", realPath };
  return stat.isFile() ? { kind: "file", size: stat.size } : { kind: "other" };
}

/** A warning of the walk, while the source has reported fewer than MAX_WALK_WARNINGS; then one line for the rest. */
function report(state: Visit, warning: RuleWarning): void {
  const count = ++state.budget.warnings;
  if (count <= MAX_WALK_WARNINGS) state.walk.warnings.push(warning);
  else if (count === MAX_WALK_WARNINGS + 1) {
    state.walk.warnings.push({ path: warning.path, message: `more than ${MAX_WALK_WARNINGS} problems in this source's rule folders; the others are not reported one by one` });
  }
}

/** Counts work against the source's budget; false (with one warning per source) once a limit is passed. */
function spend(budget: WalkBudget, what: keyof typeof WALK_LIMITS, amount: number, where: string, walk: Walk): boolean {
  if (budget.exhausted) return false;
  budget[what] += amount;
  if (budget[what] <= WALK_LIMITS[what]) return true;
  budget.exhausted = true;
  walk.warnings.push({ path: where, message: `more than ${WALK_LIMITS[what]} ${what === "entries" ? "folder entries" : what === "files" ? "rule files" : "folders"} in this source's rule folders; the walk stopped here and the rest was not read` });
  return false;
}
