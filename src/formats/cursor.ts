/**
 * Cursor (https://docs.cursor.com/context/rules): `.cursor/rules/**\/*.{mdc,md}`
 * at every project level (root down to the directory) and in sub-folders
 * below the directory ("Subdirectories can include their own
 * `.cursor/rules` directory scoped to that folder", see discover/nested-search.ts),
 * `~/.cursor/rules` (global), and the legacy `.cursorrules` at the project
 * root only ("a `.cursorrules` file in the root of your project"): one in a
 * sub-folder is not a rule.
 *
 * Front matter: `description`, `globs` (a list, a string, or comma-separated)
 * and `alwaysApply` are already this plugin's keys; Cursor reads no other
 * scoping key, so another tool's (`paths`, `applyTo`, `fileMatchPattern`) is
 * ignored here too, with a warning. Cursor's four rule types
 * follow from them, `alwaysApply` being false unless it says true:
 * - "Always" ("Always included in the model context"): `alwaysApply: true`;
 * - "Auto Attached" ("Included when files matching a glob pattern are
 *   referenced"): globs;
 * - "Agent Requested" ("the AI … decides whether to include it. Description
 *   must be provided"): a description, no globs → on request;
 * - "Manual" ("Only included when explicitly mentioned using @ruleName"):
 *   none of them, or no front matter at all.
 * A glob starting with `/` (`/resources/**`) is read from the project root
 * (a sub-folder's rules: from that folder). `.cursorrules`, which has no
 * type and no front matter (its whole text is the rule, a `---` block at
 * its top included), is always on, named `cursorrules`, its type shown as
 * Always. A `.cursor/rules` file whose front matter does not parse is still
 * read by Cursor: here it loads as Manual, with a warning at the line.
 *
 * A level between the project root and the directory, or a sub-folder below
 * it, scopes its rules to its folder (named `pkg/a/x`, see folder-scope.ts).
 */
import { basename, join } from "node:path";
import { addFolder, addSingleFile, emptyFound, MARKDOWN_OR_MDC } from "../discover/found-rules.js";
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
import { GLOB_KEYS } from "../conditions/files.js";
import { readList } from "../conditions/front-matter-list.js";
import { folderPrefix, prefixGlob, prefixOf, scopeToFolder } from "./folder-scope.js";
import { hasDescription, ignoredByTool } from "./mapping.js";

const RULES = ".cursor/rules";
const LEGACY = ".cursorrules";

export const cursorSource: RuleSource = {
  id: "cursor",
  tool: "Cursor",
  layout: { folders: [RULES], files: [LEGACY] },
  async find(context: SourceContext): Promise<FoundRules> {
    // Started before the first await: see searchBelowDirectory.
    const below = searchBelowDirectory(context);
    const found = emptyFound();
    const root = projectRootOf(context);
    const levels = projectLevels(context);
    prefetch(context.fs, [join(context.home, RULES), join(root, LEGACY), ...levels.map((level) => join(level, RULES))]);
    await addFolder(found, context, {
      folder: join(context.home, RULES),
      scope: "global",
      source: "cursor",
      accept: MARKDOWN_OR_MDC,
    });
    const inSubFolders = await nestedLevels(below, RULES, found, context.fs);
    for (const level of [...levels, ...inSubFolders]) {
      const prefix = folderPrefix(root, level);
      const named = (name: string) => (prefix ? `${prefix}/${name}` : name);
      await addFolder(found, context, {
        folder: join(level, RULES),
        scope: "project",
        source: "cursor",
        accept: MARKDOWN_OR_MDC,
        nameOf: (relPath) => named(relPath.replace(/\.(md|mdc)$/i, "")),
      });
      if (level === root)
        await addSingleFile(found, context, {
          path: join(root, LEGACY),
          scope: "project",
          source: "cursor",
          name: "cursorrules",
        });
    }
    return found;
  },
  mapFrontMatter(
    data: Record<string, unknown>,
    file: FoundRuleFile,
    warn: MapperWarn,
    front: FrontMatterFacts,
  ): Record<string, unknown> {
    if (isLegacy(file)) return { ...data, alwaysApply: true };
    const read = ignoredByTool(data, NOT_CURSOR, { tool: "Cursor", reads: "globs", alwaysOn: false }, warn, front);
    // Cursor's default: a rule applies always only when it says so.
    const typed = read.alwaysApply === undefined ? { ...read, alwaysApply: false } : read;
    const prefix = file.scope === "project" ? prefixOf(file.displayPath, RULES) : "";
    return prefix ? scopeToFolder(typed, prefix) : globsFromRoot(typed);
  },
  frontMatter: (file) => (isLegacy(file) ? "none" : "lenient"),
  typeOf(data: Record<string, unknown>, file: FoundRuleFile): string | undefined {
    return isLegacy(file) ? "Always" : cursorRuleType(data);
  },
  // "Reference files: use @filename in a rule" (the docs' example `@service-template.ts`): a line holding only `@path`.
  references: ["at-line"],
};

/** Other tools' scoping keys, which Cursor does not read. */
const NOT_CURSOR = GLOB_KEYS.filter((key) => key !== "globs");

function isLegacy(file: FoundRuleFile): boolean {
  return basename(file.path) === LEGACY;
}

/** Cursor's name for a rule's type, from its front matter as written; undefined when a value is malformed (the rule is skipped). */
function cursorRuleType(data: Record<string, unknown>): string | undefined {
  if (data.alwaysApply === true) return "Always";
  const globs = readList(data.globs);
  if (globs === undefined) return undefined;
  if (globs.length > 0) return "Auto Attached";
  if (hasDescription(data)) return "Agent Requested";
  return "Manual";
}

/** A root-level rule's globs with a leading `/` (or `./`), which Cursor reads from the project root, made relative to it; `globs` is the only glob key left. */
function globsFromRoot(data: Record<string, unknown>): Record<string, unknown> {
  const globs = readList(data.globs);
  // Malformed: the common reader reports it and skips the rule.
  if (globs === undefined || globs.length === 0) return data;
  return { ...data, globs: globs.map((glob) => prefixGlob(glob, "")) };
}
