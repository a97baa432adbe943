/** The project a source looks in: its root (what globs are relative to), its levels, its real root. */
import { dirname, join } from "node:path";
import type { RuleFs } from "./fs.js";
import { foldersFromRoot, projectRoot } from "./locations.js";
import type { SourceContext } from "./source.js";

/** The folder globs are relative to: the worktree root when the directory is inside it. */
export function projectRootOf(context: Pick<SourceContext, "directory" | "worktree">): string {
  return projectRoot(context.directory, context.worktree);
}

/** The folders from the project root down to the directory, root first. */
export function projectLevels(context: SourceContext): string[] {
  return foldersFromRoot(context.directory, context.worktree);
}

/** The repository's real root: discovery resolves it once; a source called on its own resolves it here. */
export async function realRootOf(context: SourceContext): Promise<string> {
  if (context.realRoot) return context.realRoot;
  const root = projectRootOf(context);
  return context.fs.realpath(root).catch(() => root);
}

/**
 * The nearest folder from `directory` up that holds `.git` (a folder, or a
 * file in a worktree or submodule): the project root when the host names
 * none. Undefined outside a repository.
 */
export async function gitRootAbove(fs: Pick<RuleFs, "stat">, directory: string): Promise<string | undefined> {
  for (let current = directory; ; current = dirname(current)) {
    const found = await fs.stat(join(current, ".git")).then(
      () => true,
      () => false,
    );
    if (found) return current;
    if (dirname(current) === current) return undefined;
  }
}
