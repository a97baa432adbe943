/**
 * opencode-rulebook's own folders: the global rules folder, then the
 * `.opencode/rules` of every folder from the worktree root down to the
 * project directory (nearest last).
 */
import { displayPath, foldersFromRoot, globalRulesDir, projectRulesDirs } from "./locations.js";
import type { FoundRules, RuleSource, SourceContext } from "./source.js";
import type { RuleScope } from "../rule/rule.js";
import { walkRuleFolder } from "./walk.js";

export const nativeSource: RuleSource = {
  id: "native",
  async find(context: SourceContext): Promise<FoundRules> {
    const found: FoundRules = { files: [], warnings: [], folders: [] };
    const folders: Array<[RuleScope, string]> = [
      ["global", globalRulesDir(context.env, context.home)],
      ...projectRulesDirs(context.directory, context.worktree).map((dir): [RuleScope, string] => ["project", dir]),
    ];
    const projectRoot = foldersFromRoot(context.directory, context.worktree)[0] ?? context.directory;
    for (const [scope, folder] of folders) {
      found.folders?.push(folder);
      const walk = await walkRuleFolder(folder, context.fs);
      found.warnings.push(...walk.warnings);
      for (const file of walk.files) {
        found.files.push({
          name: file.relPath.replace(/\.(md|mdc)$/i, ""),
          scope,
          source: "native",
          path: file.path,
          displayPath: displayPath(file.path, scope === "project" ? projectRoot : "", context.home),
          relPath: file.relPath,
          size: file.size,
        });
      }
    }
    return found;
  },
};

