/**
 * Cline: the nearest `.clinerules` going up from the directory to the project
 * root. A file is one always-on rule named `clinerules`, its whole text the
 * rule (Cline reads no front matter in it); a folder holds rules,
 * its `.md` files (top level), whose `paths` (a glob or a list) limit them to
 * matching files, as the common reader takes `paths` as globs. `paths` is the
 * only key Cline reads (https://docs.cline.bot/features/cline-rules/conditional-rules):
 * a rule with `globs` instead is always on there, so here too, with a warning.
 */
import { basename, join } from "node:path";
import { addFolder, addSingleFile, emptyFound } from "../discover/found-rules.js";
import { prefetch } from "../discover/probe.js";
import { projectLevels } from "../discover/project.js";
import type {
  FoundRuleFile,
  FoundRules,
  FrontMatterFacts,
  MapperWarn,
  RuleSource,
  SourceContext,
} from "../discover/source.js";
import { MARKDOWN, pathsType, readPathsOnly } from "./mapping.js";

/** A rule file, or a folder of rules. */
const CLINERULES = ".clinerules";

export const clineSource: RuleSource = {
  id: "cline",
  tool: "Cline",
  layout: { folders: [CLINERULES], files: [CLINERULES] },
  // Cline defines no file reference syntax in its rules.
  references: [],
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
      if (kind.kind === "folder")
        await addFolder(found, context, {
          folder: path,
          scope: "project",
          source: "cline",
          accept: MARKDOWN,
          topLevelOnly: true,
        });
      if (kind.kind !== "none") break;
    }
    return found;
  },
  mapFrontMatter(
    data: Record<string, unknown>,
    file: FoundRuleFile,
    warn: MapperWarn,
    front: FrontMatterFacts,
  ): Record<string, unknown> {
    return isSingleFile(file) ? { ...data, alwaysApply: true } : readPathsOnly(data, "Cline", warn, front);
  },
  // The single file has no front matter in Cline: its whole text is the rule.
  frontMatter: (file) => (isSingleFile(file) ? "none" : "lenient"),
  typeOf: (data, file) => (isSingleFile(file) ? "always" : pathsType(data)),
};

const isSingleFile = (file: FoundRuleFile) => basename(file.path) === CLINERULES;
