/**
 * Hot reload's trigger: watch the folders rules live in (one non-recursive
 * watcher per folder), and the folders a new rules folder could appear in,
 * and report that something changed. The engine reloads on its next hook,
 * so nothing is read while nobody needs it and no event rescans the disk.
 */
import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, posix } from "node:path";
import type { SourceLayout } from "./source.js";

interface RuleWatcher {
  /** True once a watched folder changed since the last `take()`; resets it. */
  take(): boolean;
  /** Watch this set of folders instead (after a reload found new ones). `known`: as for `watchRuleFolders`. */
  update(
    folders: Iterable<string>,
    entryFilter?: Map<string, ReadonlySet<string>>,
    known?: ReadonlyMap<string, boolean>,
  ): void;
  close(): void;
}

/**
 * `entryFilter` limits a folder's watcher to some entry names (the project
 * root: only `.opencode`, `.cursor`, … matter there, not every source file).
 * `known`: paths the load just probed (true for a folder), not stat'ed again.
 */
export function watchRuleFolders(
  folders: Iterable<string>,
  entryFilter = new Map<string, ReadonlySet<string>>(),
  known?: ReadonlyMap<string, boolean>,
): RuleWatcher {
  let changed = false;
  const watchers = new Map<string, FSWatcher>();
  /** Per watched folder, the entry names that matter; absent: every entry. */
  let filters = new Map<string, ReadonlySet<string>>();

  const update = (next: Iterable<string>, nextFilter = entryFilter, nextKnown?: ReadonlyMap<string, boolean>) => {
    const plan = watchPlan(next, nextFilter, nextKnown);
    filters = plan.filters;
    for (const [folder, watcher] of watchers) {
      if (!plan.folders.has(folder)) {
        watcher.close();
        watchers.delete(folder);
      }
    }
    for (const folder of plan.folders) {
      if (watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, { persistent: false }, (_event, name) => {
          const only = filters.get(folder);
          if (!only || (name !== null && only.has(String(name)))) changed = true;
        });
        watcher.on("error", () => {
          // The folder went away: a reload will notice, and watch what exists then.
          changed = true;
          watcher.close();
          watchers.delete(folder);
        });
        watchers.set(folder, watcher);
      } catch {
        // Unreadable folder: nothing to watch there.
      }
    }
  };

  update(folders, entryFilter, known);
  return {
    take() {
      const was = changed;
      changed = false;
      return was;
    },
    update,
    close() {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/**
 * A folder that does not exist yet is watched through its nearest existing
 * ancestor, for the one entry that leads to it: creating `.opencode/rules`
 * is seen as `.opencode` appearing in the project folder.
 */
function watchPlan(
  wanted: Iterable<string>,
  given: Map<string, ReadonlySet<string>>,
  known?: ReadonlyMap<string, boolean>,
) {
  const isFolder = (path: string) => known?.get(path) ?? isFolderNow(path);
  const folders = new Set<string>();
  const filters = new Map<string, Set<string>>();
  const unfiltered = new Set<string>();
  const add = (folder: string, entries?: ReadonlySet<string>) => {
    folders.add(folder);
    if (!entries) unfiltered.add(folder);
    else {
      const set = filters.get(folder) ?? new Set<string>();
      for (const entry of entries) set.add(entry);
      filters.set(folder, set);
    }
  };
  for (const folder of wanted) {
    if (isFolder(folder)) {
      add(folder, given.get(folder));
      continue;
    }
    let child = folder;
    let parent = dirname(folder);
    while (parent !== child && !isFolder(parent)) {
      child = parent;
      parent = dirname(parent);
    }
    if (parent !== child) add(parent, new Set([basename(child)]));
  }
  for (const folder of unfiltered) filters.delete(folder);
  return { folders, filters: filters as Map<string, ReadonlySet<string>> };
}

function isFolderNow(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Where rules can appear under a project (or home) folder, as the sources lay them out. */
interface RulePlaces {
  /** The folder's entries under which some source keeps rules (`.opencode`, `.cursorrules`, …). */
  entries: ReadonlySet<string>;
  /**
   * Folders below it where rule files or rules folders appear: each rules folder and those above it, each rule file's
   * folder.
   */
  folders: readonly string[];
}

export function rulePlaces(layouts: Iterable<SourceLayout>): RulePlaces {
  const entries = new Set<string>();
  const folders = new Set<string>();
  for (const layout of layouts) {
    for (const path of [...layout.folders, ...layout.files]) entries.add(path.split("/")[0] as string);
    for (const folder of layout.folders) {
      const parts = folder.split("/");
      for (let depth = 1; depth <= parts.length; depth++) folders.add(parts.slice(0, depth).join("/"));
    }
    for (const file of layout.files) if (posix.dirname(file) !== ".") folders.add(posix.dirname(file));
  }
  return { entries, folders: [...folders] };
}

/**
 * What to watch: each folder holding a rule file, the rule folders of every
 * source under the given bases (project levels, home), and the bases
 * themselves filtered to rule entries, so a new rules folder is seen too.
 */
export function foldersToWatch(
  ruleFiles: Iterable<string>,
  bases: Iterable<string>,
  extraFolders: Iterable<string>,
  places: RulePlaces,
): { folders: Set<string>; filters: Map<string, ReadonlySet<string>> } {
  const folders = new Set<string>();
  const filters = new Map<string, ReadonlySet<string>>();
  for (const file of ruleFiles) folders.add(file.slice(0, file.lastIndexOf("/")) || "/");
  for (const base of bases) {
    folders.add(base);
    filters.set(base, places.entries);
    for (const folder of places.folders) folders.add(`${base}/${folder}`);
  }
  for (const folder of extraFolders) folders.add(folder);
  return { folders, filters };
}
