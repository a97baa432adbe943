/**
 * One load's view of the file system: a source starts the probes of all its
 * rules folders and rule files at once (`prefetch`), then walks them one by
 * one in its order; each such path is stat'ed once per load, whichever
 * source asks, and every path is resolved (realpath) once. What the probes
 * found (folder or not) is kept for the watcher, which would otherwise
 * probe the same folders again.
 */
import type { Stats } from "node:fs";
import type { RuleFs } from "./fs.js";

interface ProbingFs extends RuleFs {
  prefetch(paths: Iterable<string>): void;
  /** Every path prefetched or listed so far: true for a folder, false for anything else or an error. */
  readonly folders: ReadonlyMap<string, boolean>;
}

export function probingFs(fs: RuleFs): ProbingFs {
  // Only the paths prefetched (rules folders, single rule files) are kept: the files inside a folder are stat'ed once
  // anyway.
  const stats = new Map<string, Promise<Stats>>();
  const reals = new Map<string, Promise<string>>();
  const folders = new Map<string, boolean>();
  return {
    // A folder listed is a folder (symlinks followed, as a stat would).
    readdir: (path) =>
      fs.readdir(path).then((entries) => {
        folders.set(path, true);
        return entries;
      }),
    stat: (path) => stats.get(path) ?? fs.stat(path),
    realpath(path) {
      const known = reals.get(path);
      if (known) return known;
      const once = fs.realpath(path);
      reals.set(path, once);
      return once;
    },
    readFile: (path, maxBytes, size) =>
      size === undefined ? fs.readFile(path, maxBytes) : fs.readFile(path, maxBytes, size),
    prefetch(paths) {
      for (const path of paths) {
        if (stats.has(path)) continue;
        const once = fs.stat(path);
        stats.set(path, once);
        once.then(
          (found) => folders.set(path, found.isDirectory()),
          () => folders.set(path, false),
        );
      }
    },
    folders,
  };
}

/** Starts the probes of these paths when the file system keeps them for the load (a no-op otherwise). */
export function prefetch(fs: RuleFs, paths: Iterable<string>): void {
  if ("prefetch" in fs && typeof fs.prefetch === "function") (fs as ProbingFs).prefetch(paths);
}
