/**
 * The `extraDirs` option: more rules folders (e.g. `.agents/rules`), each
 * read exactly like a native `.opencode/rules` folder, in project scope,
 * under the source id `extra`. A folder is relative to the project root,
 * absolute, or `~/…` (the home folder).
 *
 * Trust: a folder inside the repository is the repository's. A folder
 * outside it is read only when the user's own OpenCode config names it
 * (a repository's `opencode.json` must not make the plugin read the user's
 * files); it is then the user's.
 */
import { isAbsolute, join, resolve } from "node:path";
import { addFolder, emptyFound, MARKDOWN_OR_MDC } from "../discover/found-rules.js";
import { prefetch } from "../discover/probe.js";
import { projectRootOf } from "../discover/project.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";
import { inside } from "../rule/trust.js";
import { ruleWarning } from "../rule/warnings.js";

/** The absolute folders `extraDirs` names, in the order given, without repeats. */
export function resolveExtraDirs(
  extraDirs: readonly string[],
  context: Pick<SourceContext, "home" | "directory" | "worktree">,
): string[] {
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
    const root = projectRootOf(context);
    const users = new Set(resolveExtraDirs(context.userExtraDirs ?? [], context));
    const folders = resolveExtraDirs(context.extraDirs ?? [], context);
    prefetch(
      context.fs,
      folders.filter((folder) => inside(folder, [root]) || users.has(folder)),
    );
    for (const folder of folders) {
      if (inside(folder, [root]))
        await addFolder(found, context, {
          folder,
          scope: "project",
          source: "extra",
          accept: MARKDOWN_OR_MDC,
          trust: "repository",
        });
      else if (users.has(folder))
        await addFolder(found, context, {
          folder,
          scope: "project",
          source: "extra",
          accept: MARKDOWN_OR_MDC,
          trust: "user",
        });
      else {
        found.warnings.push(ruleWarning(folder, { code: "extra-dir-outside-repository" }));
      }
    }
    return found;
  },
};
