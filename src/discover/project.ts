/** The project a source looks in: its root (what globs are relative to), its levels, its real root. */
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
