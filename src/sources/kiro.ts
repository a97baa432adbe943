/**
 * Kiro: `.kiro/steering/*.md` at every project level and `~/.kiro/steering`
 * (global). `inclusion` maps to activation:
 * - `always` (Kiro's default, also when absent) → always;
 * - `fileMatch` → the `fileMatchPattern` globs (without them: manual, with a warning);
 * - `manual` → only when mentioned as `@name` (Kiro's `#name`);
 * - `auto` → on request, listed by its `description`;
 * - any other value → manual, with a warning.
 */
import { join } from "node:path";
import { readList } from "../rule/parse.js";
import { addFolder, emptyFound, MARKDOWN, projectLevels, without } from "./common.js";
import { prefetch } from "./probe.js";
import type { FoundRules, MapperWarn, RuleSource, SourceContext } from "./source.js";

const STEERING = ".kiro/steering";

export const kiroSource: RuleSource = {
  id: "kiro",
  layout: { folders: [STEERING], files: [] },
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const levels = projectLevels(context);
    prefetch(
      context.fs,
      [context.home, ...levels].map((base) => join(base, STEERING)),
    );
    await addFolder(found, context, { folder: join(context.home, STEERING), scope: "global", source: "kiro", accept: MARKDOWN, topLevelOnly: true });
    for (const level of levels) {
      await addFolder(found, context, { folder: join(level, STEERING), scope: "project", source: "kiro", accept: MARKDOWN, topLevelOnly: true });
    }
    return found;
  },
  mapFrontMatter: (data, _file, warn) => mapInclusion(data, warn),
};

const MANUAL = (data: Record<string, unknown>) => ({ ...without(data, "inclusion", "description", "fileMatchPattern", "globs"), alwaysApply: false });

export function mapInclusion(data: Record<string, unknown>, warn: MapperWarn): Record<string, unknown> {
  const inclusion = data.inclusion ?? "always";
  switch (inclusion) {
    case "always":
      return { ...without(data, "inclusion", "fileMatchPattern", "globs"), alwaysApply: true };
    case "fileMatch": {
      const patterns = readList(data.fileMatchPattern);
      if (patterns !== undefined && patterns.length === 0 && (readList(data.globs) ?? []).length === 0) {
        warn({ code: "activation-incomplete", key: "inclusion", value: "fileMatch", lacks: "fileMatchPattern" });
        return MANUAL(data);
      }
      return without(data, "inclusion", "alwaysApply");
    }
    case "manual":
      return MANUAL(data);
    case "auto":
      // Kiro's `name` repeats the file name; the rule keeps its file's name.
      return { ...without(data, "inclusion", "fileMatchPattern", "globs", "name"), alwaysApply: false };
    default:
      warn({ code: "activation-invalid", key: "inclusion", allowed: ["always", "fileMatch", "manual", "auto"], value: JSON.stringify(inclusion) });
      return MANUAL(data);
  }
}
