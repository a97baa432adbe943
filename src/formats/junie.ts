/**
 * JetBrains Junie (https://www.jetbrains.com/help/junie/customize-guidelines.html):
 * "By default, Junie looks for agent guidelines at `.junie/guidelines.md` in
 * the root folder of the configured project" and adds them to every task:
 * always on, named `junie-guidelines`. A custom guidelines path lives in the IDE's
 * settings, not in the repository, and is not read; an `AGENTS.md` chosen
 * there is loaded by OpenCode itself. Junie defines no front matter and no
 * file reference syntax: the whole file is the rule.
 */
import { join } from "node:path";
import { addSingleFile, emptyFound } from "../discover/found-rules.js";
import { projectRootOf } from "../discover/project.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";

const GUIDELINES = ".junie/guidelines.md";

export const junieSource: RuleSource = {
  id: "junie",
  tool: "Junie",
  layout: { folders: [], files: [GUIDELINES] },
  references: [],
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    await addSingleFile(found, context, { path: join(projectRootOf(context), GUIDELINES), scope: "project", source: "junie", name: "junie-guidelines" });
    return found;
  },
  mapFrontMatter: (data) => ({ ...data, alwaysApply: true }),
  typeOf: () => "always",
};
