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
import { prefetch } from "./probe.js";
import type { FoundRuleFile, FoundRules, MapperWarn, RuleSource, SourceContext } from "./source.js";

const RULES = ".windsurf/rules";
const LEGACY = ".windsurfrules";
/** Under the home folder. */
const GLOBAL_RULES = ".codeium/windsurf/memories/global_rules.md";

export const windsurfSource: RuleSource = {
  id: "windsurf",
  layout: { folders: [RULES], files: [LEGACY, GLOBAL_RULES] },
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const levels = projectLevels(context);
    prefetch(context.fs, [globalRulesFile(context.home), ...levels.flatMap((level) => [join(level, RULES), join(level, LEGACY)])]);
    await addSingleFile(found, context, { path: globalRulesFile(context.home), scope: "global", source: "windsurf", name: "global_rules" });
    for (const level of levels) {
      await addFolder(found, context, { folder: join(level, RULES), scope: "project", source: "windsurf", accept: MARKDOWN, topLevelOnly: true });
      await addSingleFile(found, context, { path: join(level, LEGACY), scope: "project", source: "windsurf", name: "windsurfrules" });
    }
    return found;
  },
  mapFrontMatter(data: Record<string, unknown>, file: FoundRuleFile, warn: MapperWarn): Record<string, unknown> {
    if (basename(file.path) === LEGACY || (file.scope === "global" && file.name === "global_rules")) return { ...data, alwaysApply: true };
    return mapTrigger(data, warn);
  },
};

export function globalRulesFile(home: string): string {
  return join(home, GLOBAL_RULES);
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
        warn({ code: "activation-incomplete", key: "trigger", value: "glob", lacks: "globs" });
        return MANUAL(data);
      }
      return without(data, "trigger", "alwaysApply");
    }
    case "model_decision":
      if (typeof data.description !== "string" || data.description.trim() === "") {
        warn({ code: "activation-incomplete", key: "trigger", value: "model_decision", lacks: "description" });
      }
      return { ...without(data, "trigger", "globs"), alwaysApply: false };
    case "manual":
      return MANUAL(data);
    default:
      warn({ code: "activation-invalid", key: "trigger", allowed: ["always_on", "glob", "model_decision", "manual"], value: JSON.stringify(trigger) });
      return MANUAL(data);
  }
}
