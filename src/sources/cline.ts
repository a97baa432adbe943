/**
 * Cline: the nearest `.clinerules` going up from the directory to the project
 * root. A file is one always-on rule named `clinerules`; a folder holds rules,
 * its `.md` files (top level), whose `paths` (a glob or a list) limit them to
 * matching files, as the common reader takes `paths` as globs.
 */
import { basename, join } from "node:path";
import { addFolder, addSingleFile, emptyFound, MARKDOWN, projectLevels } from "./common.js";
import { prefetch } from "./probe.js";
import type { FoundRuleFile, FoundRules, RuleSource, SourceContext } from "./source.js";

/** A rule file, or a folder of rules. */
const CLINERULES = ".clinerules";

export const clineSource: RuleSource = {
  id: "cline",
  layout: { folders: [CLINERULES], files: [CLINERULES] },
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const levels = [...projectLevels(context)].reverse();
    prefetch(
      context.fs,
      levels.map((level) => join(level, CLINERULES)),
    );
    for (const level of levels) {
      const path = join(level, CLINERULES);
      const kind = await addSingleFile(found, context, { path, scope: "project", source: "cline", name: "clinerules" });
      if (kind.kind === "folder") await addFolder(found, context, { folder: path, scope: "project", source: "cline", accept: MARKDOWN, topLevelOnly: true });
      if (kind.kind !== "none") break;
    }
    return found;
  },
  mapFrontMatter(data: Record<string, unknown>, file: FoundRuleFile): Record<string, unknown> {
    return basename(file.path) === CLINERULES ? { ...data, alwaysApply: true } : data;
  },
};
