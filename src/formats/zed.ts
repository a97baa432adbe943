/**
 * Zed (https://zed.dev/docs/ai/rules, "`.rules` files"): a `.rules` file at
 * the project root is included in every agent thread: always on, named
 * `rules`. Zed reads only the first of `.rules`, `.cursorrules`,
 * `.windsurfrules`, `.clinerules`, `.github/copilot-instructions.md`,
 * `AGENT.md`, `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` it finds; the others are
 * other tools' files, read by their own sources (or by OpenCode itself), so
 * this source reads `.rules` alone and no file is read twice. A `.rules` file
 * has no front matter in Zed: it is always on whatever it begins with. Zed
 * defines no file reference syntax in it.
 */
import { join } from "node:path";
import { addSingleFile, emptyFound } from "../discover/found-rules.js";
import { projectRootOf } from "../discover/project.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";

const RULES_FILE = ".rules";

export const zedSource: RuleSource = {
  id: "zed",
  tool: "Zed",
  layout: { folders: [], files: [RULES_FILE] },
  references: [],
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    await addSingleFile(found, context, { path: join(projectRootOf(context), RULES_FILE), scope: "project", source: "zed", name: "rules" });
    return found;
  },
  mapFrontMatter: (data) => ({ ...data, alwaysApply: true }),
  typeOf: () => "always",
};
