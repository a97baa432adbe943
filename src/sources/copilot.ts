/**
 * GitHub Copilot: `.github/copilot-instructions.md` (always on, named
 * `copilot-instructions`) and `.github/instructions/**\/*.instructions.md`
 * (named without `.instructions.md`) at every project level.
 *
 * `applyTo` (a glob, comma-separated globs or a list) limits an instructions
 * file to matching files; `**` or `**\/*` among them means always. Without
 * `applyTo` Copilot never attaches the file by itself: here it is on request
 * when it has a `description`, else applies only when mentioned.
 */
import { join } from "node:path";
import { readList } from "../rule/parse.js";
import { addFolder, addSingleFile, emptyFound, projectLevels, without } from "./common.js";
import { prefetch } from "./probe.js";
import type { FoundRuleFile, FoundRules, RuleSource, SourceContext } from "./source.js";

const INSTRUCTIONS = /\.instructions\.md$/i;
const ALWAYS_FILE = ".github/copilot-instructions.md";
const FOLDER = ".github/instructions";
const EVERYTHING = new Set(["**", "**/*", "./**", "./**/*"]);

export const copilotSource: RuleSource = {
  id: "copilot",
  layout: { folders: [FOLDER], files: [ALWAYS_FILE] },
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const levels = projectLevels(context);
    prefetch(
      context.fs,
      levels.flatMap((level) => [join(level, ALWAYS_FILE), join(level, FOLDER)]),
    );
    for (const level of levels) {
      await addSingleFile(found, context, { path: join(level, ALWAYS_FILE), scope: "project", source: "copilot", name: "copilot-instructions" });
      await addFolder(found, context, {
        folder: join(level, FOLDER),
        scope: "project",
        source: "copilot",
        accept: (name) => INSTRUCTIONS.test(name),
        nameOf: (relPath) => relPath.replace(INSTRUCTIONS, ""),
      });
    }
    return found;
  },
  mapFrontMatter(data: Record<string, unknown>, file: FoundRuleFile): Record<string, unknown> {
    if (file.name === "copilot-instructions" && file.relPath === "copilot-instructions.md") return { ...data, alwaysApply: true };
    return mapApplyTo(data);
  },
};

export function mapApplyTo(data: Record<string, unknown>): Record<string, unknown> {
  const applyTo = readList(data.applyTo);
  if (applyTo === undefined) return data; // Malformed: the common reader reports it and skips the rule.
  if (applyTo.some((glob) => EVERYTHING.has(glob))) return { ...without(data, "applyTo"), alwaysApply: true };
  if (applyTo.length === 0 && data.alwaysApply === undefined) return { ...without(data, "applyTo"), alwaysApply: false };
  return data;
}
