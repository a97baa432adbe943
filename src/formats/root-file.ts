/**
 * A tool whose rules are one file at the project root, always on, with no
 * front matter (Zed's `.rules`, Junie's `.junie/guidelines.md`): its whole
 * text is the rule, even a `---` block at its top, and it defines no file
 * reference syntax.
 */
import { join } from "node:path";
import { addSingleFile, emptyFound } from "../discover/found-rules.js";
import { projectRootOf } from "../discover/project.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";

export function rootFileSource(spec: { id: string; tool: string; path: string; name: string }): RuleSource {
  return {
    id: spec.id,
    tool: spec.tool,
    layout: { folders: [], files: [spec.path] },
    references: [],
    async find(context: SourceContext): Promise<FoundRules> {
      const found = emptyFound();
      await addSingleFile(found, context, {
        path: join(projectRootOf(context), spec.path),
        scope: "project",
        source: spec.id,
        name: spec.name,
      });
      return found;
    },
    frontMatter: () => "none",
    mapFrontMatter: (data) => ({ ...data, alwaysApply: true }),
    typeOf: () => "always",
  };
}
