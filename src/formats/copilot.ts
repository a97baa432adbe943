/**
 * GitHub Copilot: `.github/copilot-instructions.md` (always on, named
 * `copilot-instructions`) and `.github/instructions/**\/*.instructions.md`
 * (named without `.instructions.md`) at every project level.
 *
 * `applyTo` (a glob, comma-separated globs or a list) limits an instructions
 * file to matching files, relative to the workspace root (a glob without a
 * slash matches there only); `**` or `**\/*` among them means always
 * (https://code.visualstudio.com/docs/copilot/customization/custom-instructions). Without
 * `applyTo` Copilot never attaches the file by itself: here it is on request
 * when it has a `description`, else applies only when mentioned. The docs
 * give `copilot-instructions.md` no header ("Describe your instructions in
 * Markdown format"; it applies "to all chat requests"): its whole text is
 * the rule, a `---` block at its top included (the docs' own example opens
 * with `applyTo: "**"`, which changes nothing), and nothing in it changes
 * when it applies.
 */
import { join } from "node:path";
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
import { readList } from "../conditions/front-matter-list.js";
import { anchoredAtRoot, askedFor, warnRefused, without } from "./mapping.js";

const INSTRUCTIONS = /\.instructions\.md$/i;
const ALWAYS_FILE = ".github/copilot-instructions.md";
const FOLDER = ".github/instructions";
const TOOL = "GitHub Copilot";
const EVERYTHING = new Set(["**", "**/*", "./**", "./**/*"]);

export const copilotSource: RuleSource = {
  id: "copilot",
  tool: TOOL,
  layout: { folders: [FOLDER], files: [ALWAYS_FILE] },
  // Copilot links files with Markdown links, which are not expanded: no reference syntax.
  references: [],
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const levels = projectLevels(context);
    prefetch(
      context.fs,
      levels.flatMap((level) => [join(level, ALWAYS_FILE), join(level, FOLDER)]),
    );
    for (const level of levels) {
      await addSingleFile(found, context, {
        path: join(level, ALWAYS_FILE),
        scope: "project",
        source: "copilot",
        name: "copilot-instructions",
      });
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
  mapFrontMatter(data, file, warn, front) {
    if (isRepositoryWide(file)) return { ...data, alwaysApply: true };
    return mapApplyTo(data, warn, front);
  },
  // copilot-instructions.md is plain Markdown applied to every request: no header is read, its whole text is the rule.
  frontMatter: (file) => (isRepositoryWide(file) ? "none" : "lenient"),
  // GitHub's names: "repository-wide" and "path-specific" custom instructions; without `applyTo` VS Code attaches a file by hand, or by its description.
  typeOf: (data, file) =>
    isRepositoryWide(file)
      ? "repository-wide"
      : (readList(data.applyTo) ?? []).length > 0
        ? "path-specific"
        : "no applyTo",
};

const isRepositoryWide = (file: FoundRuleFile) =>
  file.name === "copilot-instructions" && file.relPath === "copilot-instructions.md";

export function mapApplyTo(
  data: Record<string, unknown>,
  warn: MapperWarn,
  front: FrontMatterFacts,
): Record<string, unknown> {
  const applyTo = readList(data.applyTo);
  if (applyTo === undefined) return data; // Malformed: the common reader reports it and skips the rule.
  if (applyTo.some((glob) => EVERYTHING.has(glob))) return { ...without(data, "applyTo"), alwaysApply: true };
  // VS Code's matcher reads a `!` as a character: a negated glob is refused, and one left with none has no applyTo.
  const anchored = anchoredAtRoot(applyTo, TOOL);
  const globs = anchored?.globs ?? applyTo;
  const lost = globs.length === 0 && data.alwaysApply === undefined;
  if (anchored) warnRefused(anchored.refused, TOOL, lost ? askedFor(data) : undefined, warn, front.lineOf("applyTo"));
  if (lost) return { ...without(data, "applyTo"), alwaysApply: false };
  return anchored === undefined ? data : { ...data, applyTo: globs };
}
