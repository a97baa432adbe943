/**
 * Hot reload's trigger: watch the folders rules live in (one non-recursive
 * watcher per folder), and the folders a new rules folder could appear in,
 * and report that something changed. The engine reloads on its next hook,
 * so nothing is read while nobody needs it and no event rescans the disk.
 *
 * What is not known to be a folder is stat'ed asynchronously, all at once: a
 * synchronous call on a hung network mount would freeze OpenCode's process.
 */
import { stat, watch, type FSWatcher } from "node:fs";
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
  ): Promise<void>;
  close(): void;
}

/**
 * `entryFilter` limits a folder's watcher to some entry names (the project
 * root: only `.opencode`, `.cursor`, … matter there, not every source file).
 * `known`: paths the load just probed (true for a folder), not stat'ed again.
 */
export async function watchRuleFolders(
  folders: Iterable<string>,
  entryFilter = new Map<string, ReadonlySet<string>>(),
  known?: ReadonlyMap<string, boolean>,
): Promise<RuleWatcher> {
  let changed = false;
  const watchers = new Map<string, FSWatcher>();
  /** Per watched folder, the entry names that matter; absent: every entry. */
  let filters = new Map<string, ReadonlySet<string>>();

  let closed = false;
  const apply = (plan: Awaited<ReturnType<typeof watchPlan>>) => {
    if (closed) return;
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

  // Plans are applied in the order asked: a later update never lands before an earlier one.
  let planned = Promise.resolve();
  const update = (next: Iterable<string>, nextFilter = entryFilter, nextKnown?: ReadonlyMap<string, boolean>) => {
    const plan = watchPlan(next, nextFilter, nextKnown);
    planned = planned.then(() => plan.then(apply));
    return planned;
  };

  await update(folders, entryFilter, known);
  return {
    take() {
      const was = changed;
      changed = false;
      return was;
    },
    update,
    close() {
      closed = true;
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
async function watchPlan(
  wanted: Iterable<string>,
  given: Map<string, ReadonlySet<string>>,
  known?: ReadonlyMap<string, boolean>,
) {
  const probes = new Map<string, Promise<boolean>>();
  const isFolder = (path: string): Promise<boolean> => {
    const knownNow = known?.get(path);
    if (knownNow !== undefined) return Promise.resolve(knownNow);
    let probe = probes.get(path);
    if (!probe) {
      probe = isFolderNow(path);
      probes.set(path, probe);
    }
    return probe;
  };
  /** Where each wanted folder is watched from: itself, or its nearest existing ancestor for the entry leading to it. */
  const places = await Promise.all(
    [...wanted].map(async (folder): Promise<{ folder: string; entry?: string } | undefined> => {
      if (await isFolder(folder)) return { folder };
      let child = folder;
      let parent = dirname(folder);
      while (parent !== child && !(await isFolder(parent))) {
        child = parent;
        parent = dirname(parent);
      }
      return parent !== child ? { folder: parent, entry: basename(child) } : undefined;
    }),
  );
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
  for (const place of places) {
    if (!place) continue;
    if (place.entry === undefined) add(place.folder, given.get(place.folder));
    else add(place.folder, new Set([place.entry]));
  }
  for (const folder of unfiltered) filters.delete(folder);
  return { folders, filters: filters as Map<string, ReadonlySet<string>> };
}

function isFolderNow(path: string): Promise<boolean> {
  return new Promise((resolve) => stat(path, (error, found) => resolve(!error && found.isDirectory())));
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
