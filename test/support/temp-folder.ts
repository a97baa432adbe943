/**
 * The one way tests make temporary folders and projects: a folder (its real
 * path, so paths in warnings compare equal), a tree of files written into
 * it, and a project with a home beside it, its rule folders named.
 */
import { cp, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** A fresh temporary folder, by its real path. */
export async function tempFolder(prefix = "rulebook-test-"): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

/** Writes `files` (path relative to `root`, or absolute → content), making folders as needed; the absolute paths written. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<string[]> {
  const paths: string[] = [];
  for (const [rel, content] of Object.entries(files)) {
    const path = resolve(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    paths.push(path);
  }
  return paths;
}

/** Temporary folders made one after another; `cleanup()` removes every one made so far. */
export function tempDirs() {
  const made: string[] = [];
  return {
    async make(prefix = "rulebook-unit-"): Promise<string> {
      const dir = await tempFolder(prefix);
      made.push(dir);
      return dir;
    },
    async cleanup(): Promise<void> {
      await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

export interface TempTree {
  root: string;
  home: string;
  project: string;
  /** The user's config folder: `<home>/.config`, or `<root>/xdg` when asked for apart. */
  configHome: string;
  /** `<configHome>/opencode/rules`. */
  globalRules: string;
  /** `<project>/.opencode/rules`. */
  projectRules: string;
  /** Writes files (relative path → content) under `dir`, making folders. */
  write(dir: string, files: Record<string, string | Uint8Array>): Promise<string[]>;
  cleanup(): Promise<void>;
}

export interface TempTreeOptions {
  /** A folder copied into the root first (e.g. the all-formats fixture, with its `home/` and `project/`). */
  copy?: string;
  /** The config folder at `<root>/xdg`, apart from the home. */
  configApart?: boolean;
  /** The project is a git repository (an empty `.git`). */
  git?: boolean;
}

/** A temporary project and home under one root. */
export async function tempTree(prefix = "rulebook-test-", options: TempTreeOptions = {}): Promise<TempTree> {
  const root = await tempFolder(prefix);
  if (options.copy) await cp(options.copy, root, { recursive: true });
  const home = join(root, "home");
  const project = join(root, "project");
  const configHome = options.configApart ? join(root, "xdg") : join(home, ".config");
  await mkdir(home, { recursive: true });
  await mkdir(options.git ? join(project, ".git") : project, { recursive: true });
  if (options.configApart) await mkdir(configHome, { recursive: true });
  return {
    root,
    home,
    project,
    configHome,
    globalRules: join(configHome, "opencode", "rules"),
    projectRules: join(project, ".opencode", "rules"),
    write: writeTree,
    cleanup: () => rm(root, { recursive: true, force: true, maxRetries: 5 }),
  };
}
