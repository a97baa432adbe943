/**
 * The `extraDirs` option: more rules folders (e.g. `.agents/rules`), each
 * read exactly like a native `.opencode/rules` folder, in project scope,
 * under the source id `extra`. A folder is relative to the project root,
 * absolute, or `~/…` (the home folder).
 */
import { isAbsolute, join, resolve } from "node:path";
import { addFolder, emptyFound, MARKDOWN_OR_MDC, projectRootOf } from "./common.js";
import type { FoundRules, RuleSource, SourceContext } from "./source.js";

/** The absolute folders `extraDirs` names, in the order given, without repeats. */
export function resolveExtraDirs(extraDirs: readonly string[], context: Pick<SourceContext, "home" | "directory" | "worktree">): string[] {
  const root = projectRootOf(context);
  const folders = extraDirs.map((dir) => {
    if (dir === "~") return context.home;
    if (dir.startsWith("~/")) return join(context.home, dir.slice(2));
    return isAbsolute(dir) ? resolve(dir) : resolve(root, dir);
  });
  return [...new Set(folders)];
}

export const extraSource: RuleSource = {
  id: "extra",
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    for (const folder of resolveExtraDirs(context.extraDirs ?? [], context)) {
      await addFolder(found, context, { folder, scope: "project", source: "extra", accept: MARKDOWN_OR_MDC });
    }
    return found;
  },
};
