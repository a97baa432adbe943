/**
 * The one folder walker: rule folders (every `.md` / `.mdc` file in a folder
 * and its sub-folders, in name order), and the project's own tree (the nested
 * Cursor search, `check`'s list of project files). Hidden files are never
 * returned, and hidden folders are walked only when asked (`check`'s list).
 * Only regular files are returned: a link to a FIFO or a device is never
 * opened.
 *
 * Bounded whatever the tree: each real folder is entered once per walk (a
 * symlink loop or a "diamond" of folder links ends there, with a warning),
 * nesting stops at `maxDepth`, and the folders, entries and files a walk may
 * read are counted in a budget (one source's walks share one). Under a
 * repository's boundary a symlink is followed only to a target inside the
 * repository; a walk of the project's tree follows none, and may skip what
 * git ignores.
 */
import { ruleWarning, type WarningFacts } from "../rule/warnings.js";
import { errorCode, errorReason, type RuleFs } from "./fs.js";
import { allowsRealPath } from "../rule/trust.js";
import { MAX_DEPTH, walkBudget } from "./walk-limits.js";
import type { Walk, WalkOptions } from "./walk-options.js";
import { readFolder, type WalkStep, takeEntry, type Visit } from "./walk-steps.js";

/**
 * Folders a walk of the project's own tree does not enter: dependencies and
 * build output (hidden folders, `.git` among them, are never entered). A
 * rules folder's sub-folders are all rules, whatever their names.
 */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  "node_modules",
  "dist",
  "build",
  "out",
  "target",
  "vendor",
  "coverage",
  "__pycache__",
  "venv",
]);

/**
 * Hidden folders a walk of the project's tree that enters hidden folders still does not: version control, and tools'
 * environments and caches.
 */
const SKIPPED_HIDDEN_FOLDERS: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  ".jj",
  ".venv",
  ".tox",
  ".nox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".cache",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  ".yarn",
  ".pnpm-store",
  ".gradle",
  ".terraform",
  ".dart_tool",
  ".angular",
  ".expo",
]);

/** A folder a walk of the project's tree does not enter, by its name. */
export const skippedInProjectTree = (name: string): boolean =>
  SKIPPED_FOLDERS.has(name) || SKIPPED_HIDDEN_FOLDERS.has(name);

const RULE_FILE = /\.(md|mdc)$/i;

export async function walkFolder(root: string, fs: RuleFs, options: WalkOptions = {}): Promise<Walk> {
  const walk: Walk = { files: [], warnings: [] };
  const warn = (facts: WarningFacts) => walk.warnings.push(ruleWarning(root, facts));
  let rootStat;
  try {
    rootStat = await fs.stat(root);
  } catch (error) {
    if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR")
      warn({ code: "folder-unreadable", reason: errorReason(error) });
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
    hiddenFolders: options.hiddenFolders ?? false,
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
  const pending: WalkStep[] = [{ folder: true, path: root, relPath: "", real, chain: [], ignores: options.gitignore }];
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
function listAhead(pending: readonly WalkStep[], from: number, state: Visit): void {
  let folders = 0;
  for (let i = from; i < pending.length && i < from + LIST_AHEAD.steps && folders < LIST_AHEAD.folders; i++) {
    const step = pending[i] as WalkStep;
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
 * The project's own tree, shallow folders first: symlinks, hidden folders
 * (unless `hiddenFolders`; SKIPPED_HIDDEN_FOLDERS never) and SKIPPED_FOLDERS
 * are not entered (nor, with `gitignore`, what git ignores), and no file is
 * returned: `onFolder` sees each folder's entries.
 */
export function walkProjectTree(
  root: string,
  fs: RuleFs,
  options: Pick<WalkOptions, "budget" | "maxDepth" | "onFolder" | "gitignore" | "hiddenFolders">,
): Promise<Walk> {
  return walkFolder(root, fs, {
    ...options,
    accept: () => false,
    enter: (name) => !skippedInProjectTree(name),
    followLinks: false,
    order: "breadth",
  });
}
