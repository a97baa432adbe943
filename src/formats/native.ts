/**
 * opencode-rulebook's own folders: the global rules folder, then the
 * `.opencode/rules` of every folder from the worktree root down to the
 * project directory (nearest last).
 */
import { addFolder, emptyFound, MARKDOWN_OR_MDC } from "../discover/found-rules.js";
import { globalRulesDir, NATIVE_RULES, projectRulesDirs } from "../discover/locations.js";
import { prefetch } from "../discover/probe.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";

export const nativeSource: RuleSource = {
  id: "native",
  layout: { folders: [NATIVE_RULES], files: [] },
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const global = globalRulesDir(context.env, context.home);
    const project = projectRulesDirs(context.directory, context.worktree);
    prefetch(context.fs, [global, ...project]);
    await addFolder(found, context, { folder: global, scope: "global", source: "native", accept: MARKDOWN_OR_MDC });
    for (const folder of project) {
      await addFolder(found, context, { folder, scope: "project", source: "native", accept: MARKDOWN_OR_MDC });
    }
    return found;
  },
};
