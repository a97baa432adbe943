/**
 * Walks one rules folder: every `.md` / `.mdc` file in it and its sub-folders,
 * in name order. Hidden files and folders are skipped. Symlinks are followed;
 * a link back to a folder above it ends that branch with a warning, so a loop
 * never hangs discovery. Only regular files are returned: a link to a FIFO or
 * a device is never opened.
 */
import { join } from "node:path";
import type { RuleWarning } from "../rule/rule.js";
import { errorCode, errorReason, NOT_A_REGULAR_FILE, type RuleFs } from "./fs.js";

export interface WalkedFile {
  path: string;
  /** Relative to the folder walked, POSIX separators: `sub/name.md`. */
  relPath: string;
  size: number;
}

export interface Walk {
  files: WalkedFile[];
  warnings: RuleWarning[];
}

const RULE_FILE = /\.(md|mdc)$/i;
/** Deep enough for any real layout; a guard against pathological trees. */
const MAX_DEPTH = 64;

export async function walkRuleFolder(root: string, fs: RuleFs, accept: (name: string) => boolean = (name) => RULE_FILE.test(name)): Promise<Walk> {
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
  await visit(root, "", [], fs, accept, walk);
  return walk;
}

async function visit(dir: string, rel: string, ancestors: string[], fs: RuleFs, accept: (name: string) => boolean, walk: Walk): Promise<void> {
  let real: string;
  try {
    real = await fs.realpath(dir);
  } catch (error) {
    walk.warnings.push({ path: dir, message: `folder cannot be resolved (${errorReason(error)}); skipped` });
    return;
  }
  if (ancestors.includes(real)) {
    walk.warnings.push({ path: dir, message: `symlink loop: this folder leads back to ${real}; the walk of this branch stopped here` });
    return;
  }
  if (ancestors.length >= MAX_DEPTH) {
    walk.warnings.push({ path: dir, message: `folders nested deeper than ${MAX_DEPTH} levels; this branch was not read` });
    return;
  }
  let entries;
  try {
    entries = await fs.readdir(dir);
  } catch (error) {
    walk.warnings.push({ path: dir, message: `folder cannot be read (${errorReason(error)}); its rules were not loaded` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const chain = [...ancestors, real];
  // Stat the entries of one folder together (order is kept), then descend into sub-folders in name order.
  const visible = entries.filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink() || accept(entry.name)));
  const kinds = await Promise.all(visible.map((entry) => (entry.isDirectory() ? "folder" : fs.stat(join(dir, entry.name)).catch((error: unknown) => error))));
  for (const [index, entry] of visible.entries()) {
    const path = join(dir, entry.name);
    const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`;
    const kind = kinds[index];
    if (kind === "folder") await visit(path, relPath, chain, fs, accept, walk);
    else if (kind instanceof Error || !(kind as { isFile?: unknown })?.isFile) {
      if (accept(entry.name)) walk.warnings.push({ path, message: `cannot be read (${errorReason(kind)}); skipped` });
    } else {
      const stat = kind as Awaited<ReturnType<RuleFs["stat"]>>;
      // Only a symlink can turn out to be a folder; a link to a FIFO or device is never opened.
      if (stat.isDirectory()) await visit(path, relPath, chain, fs, accept, walk);
      else if (stat.isFile() && accept(entry.name)) walk.files.push({ path, relPath, size: stat.size });
      else if (accept(entry.name)) walk.warnings.push({ path, message: NOT_A_REGULAR_FILE });
    }
  }
}
