/**
 * Windsurf (https://docs.windsurf.com/windsurf/cascade/memories):
 * `.windsurf/rules/**\/*.md` at every project level (root down to the
 * directory: "searches up to the git root directory to find rules in parent
 * directories") and in sub-folders below the directory ("All
 * `.windsurf/rules` directories within your current workspace and its
 * sub-directories", see discover/nested-search.ts); the legacy `.windsurfrules` at every
 * project level; `~/.codeium/windsurf/memories/global_rules.md` (global).
 * A rules folder's own sub-folders are read too (`<sub>/<name>`), which the
 * docs do not describe.
 *
 * `trigger` maps to activation (the docs' "Activation Modes"):
 * - `always_on` → always (`alwaysApply: true`);
 * - `glob` → the `globs` (without globs: manual, with a warning);
 * - `model_decision` → on request: listed by its `description`, or, without
 *   one, by its name and first heading (Cascade then has only the name);
 * - `manual` → only when mentioned as `@name` (its description is not used);
 * - absent (no front matter either) → manual, with a warning: "each workspace
 *   rule declares an activation mode in its frontmatter via the trigger
 *   field", and Windsurf applies a rule without one by no mode of its own
 *   (intellectronica/ruler#178: such files are "by default not automatically
 *   read"); any other value → manual, with a warning.
 * Windsurf reads no other key: another tool's scoping key (`paths`,
 * `applyTo`, `fileMatchPattern`) is ignored here too, with a warning.
 * Windsurf defines no file reference syntax in rules: none is expanded.
 * `.windsurfrules` and `global_rules.md` are always on, named `windsurfrules`
 * and `global_rules`, their whole text the rule (they have no front matter). A level between the project root and the directory, or
 * a sub-folder below it, scopes its `.windsurf/rules` to its folder (named
 * `pkg/a/x`, see folder-scope.ts). The rule's type, as `list` shows it, is its
 * `trigger` as written (`always_on` for the two single files).
 */
import { basename, join } from "node:path";
import { addFolder, addSingleFile, emptyFound } from "../discover/found-rules.js";
import { nestedLevels, searchBelowDirectory } from "../discover/nested-search.js";
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
import { readList } from "../conditions/front-matter-list.js";
import { folderPrefix, prefixOf, scopeToFolder } from "./folder-scope.js";
import { describedOrNamed, ignoredByTool, MARKDOWN, type NamedText, without } from "./mapping.js";

const RULES = ".windsurf/rules";
const LEGACY = ".windsurfrules";
/** Under the home folder. */
const GLOBAL_RULES = ".codeium/windsurf/memories/global_rules.md";

export const windsurfSource: RuleSource = {
  id: "windsurf",
  tool: "Windsurf",
  layout: { folders: [RULES], files: [LEGACY, GLOBAL_RULES] },
  references: [],
  async find(context: SourceContext): Promise<FoundRules> {
    // Started before the first await: see searchBelowDirectory.
    const below = searchBelowDirectory(context);
    const found = emptyFound();
    const root = projectRootOf(context);
    const levels = projectLevels(context);
    prefetch(context.fs, [
      globalRulesFile(context.home),
      ...levels.flatMap((level) => [join(level, RULES), join(level, LEGACY)]),
    ]);
    await addSingleFile(found, context, {
      path: globalRulesFile(context.home),
      scope: "global",
      source: "windsurf",
      name: "global_rules",
    });
    const addRulesFolder = (level: string) => {
      const prefix = folderPrefix(root, level);
      return addFolder(found, context, {
        folder: join(level, RULES),
        scope: "project",
        source: "windsurf",
        accept: MARKDOWN,
        nameOf: (relPath) => (prefix ? `${prefix}/` : "") + relPath.replace(/\.md$/i, ""),
      });
    };
    for (const level of levels) {
      await addRulesFolder(level);
      await addSingleFile(found, context, {
        path: join(level, LEGACY),
        scope: "project",
        source: "windsurf",
        name: "windsurfrules",
      });
    }
    const inSubFolders = await nestedLevels(below, RULES, found, context.fs);
    for (const folder of inSubFolders) await addRulesFolder(folder);
    return found;
  },
  mapFrontMatter(
    data: Record<string, unknown>,
    file: FoundRuleFile,
    warn: MapperWarn,
    front: FrontMatterFacts,
  ): Record<string, unknown> {
    if (isSingleFile(file)) return { ...data, alwaysApply: true };
    const read = ignoredByTool(data, NOT_WINDSURF, { tool: "Windsurf", reads: "globs", alwaysOn: false }, warn, front);
    const mapped = mapTrigger(read, warn, { name: file.name, body: front.body });
    const prefix = file.scope === "project" ? prefixOf(file.displayPath, RULES) : "";
    return prefix ? scopeToFolder(mapped, prefix) : mapped;
  },
  // The two single files have no front matter in Windsurf: their whole text is the rule.
  frontMatter: (file) => (isSingleFile(file) ? "none" : "lenient"),
  typeOf(data: Record<string, unknown>, file: FoundRuleFile): string | undefined {
    if (isSingleFile(file)) return "always_on";
    return typeof data.trigger === "string" ? data.trigger : "no trigger";
  },
};

/** `.windsurfrules` or `global_rules.md`: always on, whatever their front matter. */
function isSingleFile(file: FoundRuleFile): boolean {
  return basename(file.path) === LEGACY || (file.scope === "global" && file.name === "global_rules");
}

function globalRulesFile(home: string): string {
  return join(home, GLOBAL_RULES);
}

const MANUAL = (data: Record<string, unknown>) => ({
  ...without(data, "trigger", "description", "globs"),
  alwaysApply: false,
});

const TRIGGERS = ["always_on", "glob", "model_decision", "manual"];
/** Other tools' scoping keys: Windsurf reads `trigger`, `globs` and `description` only. */
export const NOT_WINDSURF = ["paths", "applyTo", "fileMatchPattern"];

/** Windsurf's `trigger` (and Antigravity's, which keeps Windsurf's activation modes; `tool` names it in warnings). */
export function mapTrigger(
  data: Record<string, unknown>,
  warn: MapperWarn,
  rule: NamedText = { name: "", body: "" },
  tool = "Windsurf",
): Record<string, unknown> {
  const trigger = data.trigger;
  if (trigger === undefined || trigger === null) {
    warn({ code: "activation-missing", key: "trigger", tool, allowed: TRIGGERS });
    return MANUAL(data);
  }
  switch (trigger) {
    case "always_on":
      return { ...without(data, "trigger", "globs"), alwaysApply: true };
    case "glob": {
      const globs = readList(data.globs);
      if (globs !== undefined && globs.length === 0) {
        warn({ code: "activation-incomplete", key: "trigger", value: "glob", lacks: "globs" });
        return MANUAL(data);
      }
      return without(data, "trigger", "alwaysApply");
    }
    case "model_decision":
      return describedOrNamed({ ...without(data, "trigger", "globs"), alwaysApply: false }, data, rule);
    case "manual":
      return MANUAL(data);
    default:
      warn({ code: "activation-invalid", key: "trigger", allowed: TRIGGERS, value: JSON.stringify(trigger) });
      return MANUAL(data);
  }
}
