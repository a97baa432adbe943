/**
 * Rule files found by looking up from the files a session touches, as Gemini
 * CLI finds a sub-folder's `GEMINI.md` ("just-in-time" context): when a tool
 * accesses a file or folder, the folder and each one above it, up to the
 * project root, are checked for the file. Hidden and git-ignored folders are
 * looked in too, as Gemini CLI does; no tree is walked ahead.
 *
 * Bounds (a repository is untrusted, and a session may touch thousands of
 * files): each folder is checked once and remembered (a folder found without
 * the file is checked again after `RECHECK_MS`, so a file created mid-session
 * is seen); at most `MAX_KNOWN` folders are remembered, at most `MAX_FOUND`
 * found, `MAX_PATHS` paths taken per call and `MAX_DEPTH` folders walked per
 * path. Symlinks are resolved first: a path whose real folder lies outside the
 * project's real root is not looked up from, and every folder checked is a
 * real folder inside it.
 */
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import type { RuleFs } from "./fs.js";

export const LOOK_UP_LIMITS = { maxKnown: 20_000, maxFound: 1_000, maxPaths: 256, maxDepth: 64, recheckMs: 5_000 };

export interface LookUp {
  /**
   * Looks up from each absolute path (a file or a folder); true when a folder holding the file was found that was not
   * known before.
   */
  from(paths: readonly string[]): Promise<boolean>;
  /** The folders found holding the file, under the project root as OpenCode names it, in path order. */
  folders(): readonly string[];
}

interface LookUpPlace {
  fs: Pick<RuleFs, "stat" | "realpath">;
  /** The project root as OpenCode names it, and its real path (symlinks resolved). */
  root: string;
  realRoot: Promise<string>;
  /** Folders at or above it are another search's: only folders strictly below it are found. */
  below: string;
  fileName: string;
  now?: () => number;
  limits?: Partial<typeof LOOK_UP_LIMITS>;
}

export function lookUp(place: LookUpPlace): LookUp {
  const limits = { ...LOOK_UP_LIMITS, ...place.limits };
  const now = place.now ?? Date.now;
  /** Per real folder: whether it holds the file, and when that was seen. */
  const known = new Map<string, { holds: boolean; at: number }>();
  /** Per path looked up from: the real folder to start at. */
  const startOf = new Map<string, string>();
  const found = new Set<string>();
  let sorted: string[] | undefined;

  /** A folder is looked up from itself; a file from its folder; a path not there yet (written) from its nearest folder. */
  const startFolder = async (path: string): Promise<string | null> => {
    const cached = startOf.get(path);
    if (cached !== undefined) return cached;
    const real = await place.fs.realpath(path).catch(() => null);
    let start = real !== null && (await isFolder(place.fs, real)) ? real : null;
    for (let folder = dirname(path), depth = 0; start === null && depth < limits.maxDepth; depth++) {
      start = await place.fs.realpath(folder).catch(() => null);
      if (dirname(folder) === folder) break;
      folder = dirname(folder);
    }
    // A path not there yet is tried again next time: its folder may be made.
    if (start === null || real === null) return start;
    if (startOf.size >= limits.maxKnown) startOf.clear();
    startOf.set(path, start);
    return start;
  };

  const holds = async (realFolder: string): Promise<boolean> => {
    const seen = known.get(realFolder);
    const at = now();
    if (seen && (seen.holds || at - seen.at < limits.recheckMs)) return seen.holds;
    const stats = await place.fs.stat(join(realFolder, place.fileName)).catch(() => undefined);
    const result = stats?.isFile() === true;
    if (known.size >= limits.maxKnown) known.clear();
    known.set(realFolder, { holds: result, at });
    return result;
  };

  /** The real folders from `realFolder` up to the real root, the root and those at or above `below` left out. */
  const chain = (realFolder: string, realRoot: string, realBelow: string): string[] => {
    const folders: string[] = [];
    for (let folder = realFolder; folders.length < limits.maxDepth; folder = dirname(folder)) {
      if (!isStrictlyBelow(folder, realRoot) || !isStrictlyBelow(folder, realBelow)) break;
      folders.push(folder);
    }
    return folders;
  };

  const fromOne = async (path: string, realRoot: string, realBelow: string): Promise<boolean> => {
    // Only an absolute path says where it is: a relative one would be read from the process's own folder.
    if (!isAbsolute(path)) return false;
    const start = await startFolder(path);
    if (start === null || !isStrictlyBelow(start, realRoot)) return false;
    let added = false;
    for (const folder of chain(start, realRoot, realBelow)) {
      if (!(await holds(folder))) continue;
      const named = join(place.root, relative(realRoot, folder));
      if (found.has(named) || found.size >= limits.maxFound) continue;
      found.add(named);
      sorted = undefined;
      added = true;
    }
    return added;
  };

  return {
    async from(paths) {
      const realRoot = await place.realRoot;
      const realBelow = join(realRoot, relative(place.root, place.below));
      const results = await Promise.all(
        paths.slice(0, limits.maxPaths).map((path) => fromOne(path, realRoot, realBelow).catch(() => false)),
      );
      return results.includes(true);
    },
    folders() {
      sorted ??= [...found].sort();
      return sorted;
    },
  };
}

const isStrictlyBelow = (folder: string, above: string): boolean =>
  folder.length > above.length && folder.startsWith(above.endsWith(sep) ? above : above + sep);

const isFolder = (fs: Pick<RuleFs, "stat">, path: string): Promise<boolean> =>
  fs.stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
