/**
 * Windsurf: `.windsurf/rules/*.md` and the legacy `.windsurfrules` at every
 * project level, and `~/.codeium/windsurf/memories/global_rules.md` (global).
 *
 * `trigger` maps to activation:
 * - `always_on` → always (`alwaysApply: true`);
 * - `glob` → the `globs` (without globs: manual, with a warning);
 * - `model_decision` → on request: listed by its `description`;
 * - `manual` → only when mentioned as `@name` (its description is not used);
 * - absent → read like a native rule; any other value → manual, with a warning.
 * `.windsurfrules` and `global_rules.md` are always on, named `windsurfrules`
 * and `global_rules`.
 */
import { basename, join } from "node:path";
import { readList } from "../rule/parse.js";
import { addFolder, addSingleFile, emptyFound, MARKDOWN, projectLevels, without } from "./common.js";
import type { FoundRuleFile, FoundRules, MapperWarn, RuleSource, SourceContext } from "./source.js";

export const windsurfSource: RuleSource = {
  id: "windsurf",
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    await addSingleFile(found, context, { path: globalRulesFile(context.home), scope: "global", source: "windsurf", name: "global_rules" });
    for (const level of projectLevels(context)) {
      await addFolder(found, context, { folder: join(level, ".windsurf", "rules"), scope: "project", source: "windsurf", accept: MARKDOWN, topLevelOnly: true });
      await addSingleFile(found, context, { path: join(level, ".windsurfrules"), scope: "project", source: "windsurf", name: "windsurfrules" });
    }
    return found;
  },
  mapFrontMatter(data: Record<string, unknown>, file: FoundRuleFile, warn: MapperWarn): Record<string, unknown> {
    if (basename(file.path) === ".windsurfrules" || (file.scope === "global" && file.name === "global_rules")) return { ...data, alwaysApply: true };
    return mapTrigger(data, warn);
  },
};

export function globalRulesFile(home: string): string {
  return join(home, ".codeium", "windsurf", "memories", "global_rules.md");
}

const MANUAL = (data: Record<string, unknown>) => ({ ...without(data, "trigger", "description", "globs"), alwaysApply: false });

export function mapTrigger(data: Record<string, unknown>, warn: MapperWarn): Record<string, unknown> {
  const trigger = data.trigger;
  if (trigger === undefined || trigger === null) return without(data, "trigger");
  switch (trigger) {
    case "always_on":
      return { ...without(data, "trigger", "globs"), alwaysApply: true };
    case "glob": {
      const globs = readList(data.globs);
      if (globs !== undefined && globs.length === 0) {
        warn('front matter says "trigger: glob" but gives no globs; the rule applies only when mentioned');
        return MANUAL(data);
      }
      return without(data, "trigger", "alwaysApply");
    }
    case "model_decision":
      if (typeof data.description !== "string" || data.description.trim() === "") {
        warn('front matter says "trigger: model_decision" but has no description; the rule applies only when mentioned');
      }
      return { ...without(data, "trigger", "globs"), alwaysApply: false };
    case "manual":
      return MANUAL(data);
    default:
      warn(`front matter key "trigger" should be always_on, glob, model_decision or manual, found ${JSON.stringify(trigger)}; the rule applies only when mentioned`);
      return MANUAL(data);
  }
}
