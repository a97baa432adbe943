/**
 * What git ignores, for the walk of the project's tree that searches nested
 * rules folders: the `.gitignore` of every folder (its patterns apply to that
 * folder and below, a deeper file's over a shallower one's) and the
 * repository's `.git/info/exclude` (below them all), with git's pattern
 * semantics (negation, anchoring, directory-only patterns) from `ignore`.
 *
 * Only folders are asked about: the walk enters folders and returns no file.
 */
import type { Dirent } from "node:fs";
import { join, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { relativePath } from "../rule/relative-path.js";
import type { RuleFs } from "./fs.js";
import { childPaths, foldersFromRoot } from "./locations.js";

/** One ignore file's patterns, and the folder they are relative to. */
interface IgnoreLevel {
  dir: string;
  patterns: Ignore;
}

/** The ignore files in force in a folder, shallowest first (`.git/info/exclude` before every `.gitignore`). */
export type IgnoreChain = readonly IgnoreLevel[];

/**
 * A larger ignore file is not read. Real ones hold a few KiB; each pattern is
 * compiled to a regular expression on every load, so a repository must not
 * make the search parse megabytes of them.
 */
export const MAX_IGNORE_FILE_BYTES = 256 * 1024;

/**
 * Git folds case in ignore patterns where `git init` finds the file system case-insensitive (its `core.ignorecase`).
 */
const IGNORE_CASE = process.platform === "darwin" || process.platform === "win32";

/** The patterns of an ignore file's text; undefined when it has none. */
function ignoreLevel(dir: string, text: string): IgnoreLevel | undefined {
  if (!/^[ \t]*[^#\s]/m.test(text)) return undefined;
  return { dir, patterns: ignore({ ignorecase: IGNORE_CASE }).add(text) };
}

/**
 * An ignore file's text; undefined when it is absent, too large or
 * unreadable: the search then walks what it would have skipped, which costs
 * time but loses no rule.
 */
async function readIgnoreFile(fs: RuleFs, path: string): Promise<string | undefined> {
  try {
    const bytes = await fs.readFile(path, MAX_IGNORE_FILE_BYTES);
    if (bytes.byteLength > MAX_IGNORE_FILE_BYTES) return undefined;
    // Drops a UTF-8 byte order mark, as git does.
    return new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  }
}

/** An ignore file's level; the caller has seen that it is a regular file (reading a FIFO would block). */
async function levelOf(fs: RuleFs, dir: string, path: string): Promise<IgnoreLevel | undefined> {
  const text = await readIgnoreFile(fs, path);
  return text === undefined ? undefined : ignoreLevel(dir, text);
}

/**
 * The ignore files in force at the walk's root `start`: the repository's
 * `.git/info/exclude` and the `.gitignore` of each folder from the
 * repository root `root` down to, not including, `start` (the walk reads
 * `start`'s own with its entries), less any that ignores `start` itself (the
 * walk starts there all the same; see `inForceBelow`).
 */
export async function ignoresAbove(fs: RuleFs, root: string, start: string): Promise<IgnoreChain> {
  const above = foldersFromRoot(start, root).slice(0, -1);
  const places = [
    { dir: root, path: join(root, ".git", "info", "exclude") },
    ...above.map((dir) => ({ dir, path: join(dir, ".gitignore") })),
  ];
  const levels = await Promise.all(
    places.map(async ({ dir, path }) => {
      // Through a symlink too, unlike git's own walk (which reads no linked `.gitignore`): a few files above the
      // search, read once.
      const stat = await fs.stat(path).catch(() => undefined);
      return stat?.isFile() ? levelOf(fs, dir, path) : undefined;
    }),
  );
  return levels.filter(
    (level): level is IgnoreLevel => level !== undefined && (level.dir === start || !testFolder(level, start).ignored),
  );
}

/** The ignore files in force in `dir`, a folder the walk entered: those in force above it and its own `.gitignore`. */
export async function ignoresIn(
  fs: RuleFs,
  dir: string,
  entries: readonly Dirent[],
  above: IgnoreChain,
): Promise<IgnoreChain> {
  // Its Dirent, not a stat: a symlink is passed over, as git does.
  const file = entries.find((entry) => entry.name === ".gitignore");
  const own = file?.isFile() ? await levelOf(fs, dir, childPaths(dir)(file.name)) : undefined;
  return own ? [...above, own] : above;
}

/**
 * Undefined when git ignores the folder `path` (below every level's folder):
 * the deepest ignore file that has a say decides. Otherwise the ignore files
 * in force below it: `chain`, less any that ignores `path` itself when a
 * deeper one re-includes it. `ignore` calls everything under an ignored
 * folder ignored, so such a file, kept, would cover all of `path`; set aside,
 * its other patterns no longer apply below `path`, where git would still
 * apply them: more is searched, nothing is lost.
 */
export function inForceBelow(chain: IgnoreChain, path: string): IgnoreChain | undefined {
  for (let i = chain.length - 1; i >= 0; i--) {
    const result = testFolder(chain[i] as IgnoreLevel, path);
    if (result.ignored) return undefined;
    if (result.unignored)
      return i === 0 ? chain : chain.filter((level, j) => j >= i || !testFolder(level, path).ignored);
  }
  return chain;
}

function testFolder(level: IgnoreLevel, path: string) {
  const rel = relativePath(level.dir, path);
  // A trailing slash: a folder, which directory-only patterns (`build/`) match.
  return level.patterns.test(`${sep === "/" ? rel : rel.split(sep).join("/")}/`);
}
