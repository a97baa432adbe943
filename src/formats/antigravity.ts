/**
 * Google Antigravity (https://antigravity.google/docs/rules-workflows):
 * workspace rules in `.agents/rules/` and, kept for backward compatibility,
 * `.agent/rules/` ("of your workspace or git root"; here at every project
 * level, root down to the directory), their `.md` files and those of their
 * sub-folders (`<sub>/<name>`; the docs do not say); the user's global rule
 * `~/.gemini/GEMINI.md` (always; shared with Gemini CLI: gemini.ts).
 *
 * Antigravity keeps Windsurf's activation modes and keys (windsurf.ts,
 * `mapTrigger`): `trigger: always_on | glob | model_decision | manual` with
 * `globs` and `description`. Its docs name no front matter for a rule
 * without `trigger`, and users report such a rule is not applied by itself
 * (rtk-ai/rtk#2916: "without the `trigger: always_on` frontmatter, the rule
 * file was completely ignored"): manual here, with a warning, as Windsurf.
 * Another tool's scoping key (`paths`, `applyTo`, `fileMatchPattern`) is
 * ignored with a warning. A deeper level's rules are scoped to its folder,
 * as Windsurf's (folder-scope.ts). The type `list` shows is the `trigger`
 * as written (`always` for `~/.gemini/GEMINI.md`).
 *
 * `@path` references ("@ Mentions in Rules"): relative to the rule file; an
 * absolute `@/path` is tried as absolute, then from the repository root.
 * Where in a line a reference may stand is not documented: as Gemini CLI's
 * imports (`gemini-import`), Antigravity's sibling that shares `~/.gemini`.
 * Within the trust boundary (a repository's rule reaches the repository's
 * files only, real paths after symlinks).
 */
import { join } from "node:path";
import { addFolder, emptyFound } from "../discover/found-rules.js";
import { prefetch } from "../discover/probe.js";
import { projectLevels, projectRootOf } from "../discover/project.js";
import type {
  FoundRuleFile,
  FoundRules,
  FrontMatterFacts,
  MapperWarn,
  RuleSource,
  SourceContext,
} from "../discover/source.js";
import { folderPrefix, prefixOf, scopeToFolder } from "./folder-scope.js";
import { addGeminiGlobal, GEMINI_GLOBAL_NAME } from "./gemini.js";
import { ignoredByTool, MARKDOWN } from "./mapping.js";
import { mapTrigger, NOT_WINDSURF } from "./windsurf.js";

/** The current spelling first: a rule of the same name in both is taken from it. */
const RULES = [".agents/rules", ".agent/rules"];

export const antigravitySource: RuleSource = {
  id: "antigravity",
  tool: "Antigravity",
  layout: { folders: RULES, files: [".gemini/GEMINI.md"] },
  references: ["gemini-import"],
  referenceRoots: (file, context) => (file.scope === "project" ? [projectRootOf(context)] : []),
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const root = projectRootOf(context);
    const levels = projectLevels(context);
    prefetch(
      context.fs,
      levels.flatMap((level) => RULES.map((rules) => join(level, rules))),
    );
    await addGeminiGlobal(found, context, "antigravity");
    for (const level of levels) {
      const prefix = folderPrefix(root, level);
      for (const rules of RULES) {
        await addFolder(found, context, {
          folder: join(level, rules),
          scope: "project",
          source: "antigravity",
          accept: MARKDOWN,
          nameOf: (relPath) => (prefix ? `${prefix}/` : "") + relPath.replace(/\.md$/i, ""),
        });
      }
    }
    return found;
  },
  mapFrontMatter(
    data: Record<string, unknown>,
    file: FoundRuleFile,
    warn: MapperWarn,
    front: FrontMatterFacts,
  ): Record<string, unknown> {
    if (isGlobal(file)) return { ...data, alwaysApply: true };
    const read = ignoredByTool(
      data,
      NOT_WINDSURF,
      { tool: "Antigravity", reads: "globs", alwaysOn: false },
      warn,
      front,
    );
    const mapped = mapTrigger(read, warn, { name: file.name, body: front.body }, "Antigravity");
    const prefix = RULES.map((rules) => prefixOf(file.displayPath, rules)).find((found) => found !== "") ?? "";
    return prefix ? scopeToFolder(mapped, prefix) : mapped;
  },
  typeOf(data: Record<string, unknown>, file: FoundRuleFile): string | undefined {
    if (isGlobal(file)) return "always";
    return typeof data.trigger === "string" ? data.trigger : "no trigger";
  },
};

const isGlobal = (file: FoundRuleFile) => file.scope === "global" && file.name === GEMINI_GLOBAL_NAME;
