/**
 * Rules folders below the directory (Cursor's `.cursor/rules`, Windsurf's
 * `.windsurf/rules` in sub-folders of the project); the formats scope their
 * rules to their folder (folder-scope.ts).
 *
 * The search is one walk of the project's tree per load, shared by the
 * sources that look for nested folders: breadth first, in name order, within
 * NESTED_SEARCH. Hidden folders, symlinks, SKIPPED_FOLDERS and what git
 * ignores (`.gitignore` at every level, `.git/info/exclude`) are not entered.
 */
import { join } from "node:path";
import { ruleWarning, type RuleWarning } from "../rule/warnings.js";
import type { RuleFs } from "./fs.js";
import { ignoresAbove } from "./gitignore.js";
import { prefetch } from "./probe.js";
import { projectRootOf } from "./project.js";
import type { FoundRules, SourceContext } from "./source.js";
import { walkBudget } from "./walk-limits.js";
import { walkProjectTree } from "./walk.js";

/**
 * Bounds of the search below the directory, so a huge tree cannot stall
 * loading. The 100,000-file repository of bench/nested.ts has 5,207 folders
 * to search (outside its dependencies, build output and ignored folders), a
 * fifth of the folder limit; rules folders sit at package roots, well above
 * the depth limit.
 */
export const NESTED_SEARCH = { maxDepth: 8, maxFolders: 25_000 };

interface NestedSearch {
  /** Folders strictly below the directory with an entry named `name` (`.cursor`), breadth first, in name order. */
  holding(name: string): string[];
  /** The search's own problems: given to the first source that asked, so a load reports them once. */
  warnings: RuleWarning[];
}

interface Tree {
  /** Per hidden entry name, the folders below the directory that have it: the rules folders' first parts are hidden. */
  foldersByEntry: Map<string, string[]>;
  warnings: RuleWarning[];
}

/** The searches of one load, by the load's file system (`probingFs`): each source of the load gets the same walk. */
const searches = new WeakMap<RuleFs, Map<string, Promise<Tree>>>();

/**
 * The search below the directory, started by the first source that asks.
 * Call it before the source's first `await`: discovery starts the sources in
 * precedence order, so the first of them reports the search's warnings.
 */
export function searchBelowDirectory(context: SourceContext): Promise<NestedSearch> {
  const perLoad = searchesOf(context.fs);
  const key = `${projectRootOf(context)}\0${context.directory}`;
  const known = perLoad?.get(key);
  const tree = known ?? walkBelow(context);
  if (!known) perLoad?.set(key, tree);
  return tree.then(({ foldersByEntry, warnings }) => ({
    holding: (name) => foldersByEntry.get(name) ?? [],
    warnings: known ? [] : warnings,
  }));
}

/** The searches of the load whose file system this is; none for a plain file system (a direct call walks afresh). */
function searchesOf(fs: RuleFs): Map<string, Promise<Tree>> | undefined {
  if (!("prefetch" in fs)) return undefined;
  let perLoad = searches.get(fs);
  if (!perLoad) {
    perLoad = new Map();
    searches.set(fs, perLoad);
  }
  return perLoad;
}

async function walkBelow(context: SourceContext): Promise<Tree> {
  const start = context.directory;
  const foldersByEntry = new Map<string, string[]>();
  const walk = await walkProjectTree(start, context.fs, {
    // The directory is level 0: its sub-folders down to level maxDepth are searched.
    maxDepth: NESTED_SEARCH.maxDepth + 1,
    budget: walkBudget({ folders: NESTED_SEARCH.maxFolders, entries: Infinity, files: Infinity }),
    gitignore: await ignoresAbove(context.fs, projectRootOf(context), start),
    onFolder: (dir, _relPath, entries) => {
      if (dir === start) return;
      for (const entry of entries) {
        if (!entry.name.startsWith(".")) continue;
        const folders = foldersByEntry.get(entry.name);
        if (folders) folders.push(dir);
        else foldersByEntry.set(entry.name, [dir]);
      }
    },
  });
  // The search's own problems, worded for it; the directory itself is other sources' to report.
  const warnings: RuleWarning[] = [];
  for (const warning of walk.warnings) {
    if (warning.code === "walk-limit")
      warnings.push(ruleWarning(start, { code: "nested-search-limit", maxFolders: NESTED_SEARCH.maxFolders }));
    else if (warning.code === "subfolder-unreadable" && warning.path !== start && warning.reason !== "ENOENT") {
      warnings.push(ruleWarning(warning.path, { code: "nested-folder-unreadable", reason: warning.reason }));
    }
  }
  return { foldersByEntry, warnings };
}

/**
 * The sub-folders the search found holding `rulesFolder` (`.cursor/rules`),
 * in its order, with their rules folders prefetched; the search's warnings
 * (only the first source to ask gets any) join the source's.
 */
export async function nestedLevels(
  search: Promise<NestedSearch>,
  rulesFolder: string,
  found: FoundRules,
  fs: RuleFs,
): Promise<string[]> {
  const nested = await search;
  found.warnings.push(...nested.warnings);
  const levels = nested.holding(rulesFolder.split("/")[0] as string);
  prefetch(
    fs,
    levels.map((level) => join(level, rulesFolder)),
  );
  return levels;
}
