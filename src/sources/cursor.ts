/**
 * Cursor: `.cursor/rules/**\/*.{mdc,md}` and the legacy `.cursorrules` at
 * every project level (root down to the directory), nested `.cursor/rules`
 * folders below the directory, and `~/.cursor/rules` (global).
 *
 * Front matter: `description`, `globs` (a list, a string, or comma-separated)
 * and `alwaysApply` are already this plugin's keys.
 *
 * Nested folders: rules under `pkg/a/.cursor/rules/` (and `pkg/a/.cursorrules`)
 * belong to `pkg/a`. Their names are prefixed (`pkg/a/x`), their globs are
 * made relative to the project root (`*.ts` → `pkg/a/**\/*.ts`,
 * `src/**` → `pkg/a/src/**`), and a rule that would always apply, or be
 * offered on request by its description, applies to files under `pkg/a/**`
 * instead: as Cursor attaches nested rules when files of their folder are
 * referenced, a nested rule never reaches a session working elsewhere.
 * Manual rules stay manual (`@pkg/a/name`). `.cursorrules` is always on,
 * named `cursorrules` (`pkg/a/cursorrules` in a sub-folder).
 */
import { basename, join, relative, sep } from "node:path";
import { GLOB_KEYS, readList } from "../rule/parse.js";
import { ruleWarning } from "../rule/warnings.js";
import { addFolder, addSingleFile, emptyFound, MARKDOWN_OR_MDC, projectLevels, projectRootOf, without } from "./common.js";
import { prefetch } from "./probe.js";
import type { FoundRuleFile, FoundRules, RuleSource, SourceContext } from "./source.js";
import { walkBudget, walkProjectTree } from "./walk.js";

const RULES = ".cursor/rules";
const LEGACY = ".cursorrules";
/** Entries that show a folder holds Cursor rules of its own: `.cursor`, `.cursorrules`. */
const MARKERS = new Set([RULES, LEGACY].map((path) => path.split("/")[0] as string));

/** Bounds of the search below the directory, so a huge tree cannot stall loading. */
export const NESTED_SEARCH = { maxDepth: 8, maxFolders: 2000 };

export const cursorSource: RuleSource = {
  id: "cursor",
  layout: { folders: [RULES], files: [LEGACY] },
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const root = projectRootOf(context);
    const levels = projectLevels(context);
    const places = (folders: string[]) => folders.flatMap((level) => [join(level, RULES), join(level, LEGACY)]);
    prefetch(context.fs, [join(context.home, RULES), context.directory, ...places(levels)]);
    await addFolder(found, context, { folder: join(context.home, RULES), scope: "global", source: "cursor", accept: MARKDOWN_OR_MDC });
    const nested = await nestedFolders(context, found);
    prefetch(context.fs, places(nested));
    for (const level of [...levels, ...nested]) {
      const prefix = folderPrefix(root, level);
      const named = (name: string) => (prefix ? `${prefix}/${name}` : name);
      await addFolder(found, context, {
        folder: join(level, RULES),
        scope: "project",
        source: "cursor",
        accept: MARKDOWN_OR_MDC,
        nameOf: (relPath) => named(relPath.replace(/\.(md|mdc)$/i, "")),
      });
      await addSingleFile(found, context, { path: join(level, LEGACY), scope: "project", source: "cursor", name: named("cursorrules") });
    }
    return found;
  },
  mapFrontMatter(data: Record<string, unknown>, file: FoundRuleFile): Record<string, unknown> {
    let mapped = data;
    if (basename(file.path) === LEGACY) mapped = { ...data, alwaysApply: true };
    const prefix = file.scope === "project" ? nestedPrefix(file.displayPath) : "";
    return prefix ? scopeToFolder(mapped, prefix) : mapped;
  },
};

/** `pkg/a` for `pkg/a/.cursor/rules/x.mdc` or `pkg/a/.cursorrules`; "" at the project root. */
function nestedPrefix(displayPath: string): string {
  const inRules = displayPath.indexOf(`/${RULES}/`);
  if (inRules > 0) return displayPath.slice(0, inRules);
  if (displayPath.endsWith(`/${LEGACY}`)) return displayPath.slice(0, -`/${LEGACY}`.length);
  return "";
}

function folderPrefix(root: string, folder: string): string {
  const rel = relative(root, folder);
  return rel === "" || rel.startsWith("..") ? "" : rel.split(sep).join("/");
}

/** A nested rule's conditions, relative to the project root and limited to its folder. */
export function scopeToFolder(data: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const globs: string[] = [];
  for (const key of GLOB_KEYS) {
    const list = readList(data[key]);
    if (list === undefined) return data; // Malformed: the common reader reports it and skips the rule.
    globs.push(...list);
  }
  const rest = without(data, ...GLOB_KEYS);
  const keywords = readList(data.keywords) ?? [];
  const describedOnly = data.alwaysApply === false && globs.length === 0 && keywords.length === 0 && typeof data.description === "string" && data.description.trim() !== "";
  if (data.alwaysApply === true || describedOnly || (data.alwaysApply === undefined && globs.length === 0 && keywords.length === 0)) {
    return { ...without(rest, "alwaysApply"), globs: [`${prefix}/**`] };
  }
  return globs.length > 0 ? { ...rest, globs: globs.map((glob) => prefixGlob(glob, prefix)) } : rest;
}

export function prefixGlob(glob: string, prefix: string): string {
  if (glob.startsWith("!")) return `!${prefixGlob(glob.slice(1), prefix)}`;
  const anchored = glob.replace(/^\.?\//, "");
  if (anchored !== glob || glob.includes("/")) return `${prefix}/${anchored}`;
  return `${prefix}/**/${glob}`;
}

/**
 * Folders strictly below the directory that hold a `.cursor/rules` folder
 * or a `.cursorrules` file, breadth first, in name order. Hidden folders,
 * symlinks and dependency or build folders are not entered.
 */
async function nestedFolders(context: SourceContext, found: FoundRules): Promise<string[]> {
  const root = context.directory;
  const result: string[] = [];
  const walk = await walkProjectTree(root, context.fs, {
    // The directory is level 0: its sub-folders down to level maxDepth are searched.
    maxDepth: NESTED_SEARCH.maxDepth + 1,
    budget: walkBudget({ folders: NESTED_SEARCH.maxFolders, entries: Infinity, files: Infinity }),
    onFolder: (dir, _relPath, entries) => {
      if (dir !== root && entries.some((entry) => MARKERS.has(entry.name))) result.push(dir);
    },
  });
  // The search's own problems, worded for it; the directory itself is other sources' to report.
  for (const warning of walk.warnings) {
    if (warning.code === "walk-limit") found.warnings.push(ruleWarning(root, { code: "nested-search-limit", maxFolders: NESTED_SEARCH.maxFolders }));
    else if (warning.code === "subfolder-unreadable" && warning.path !== root && warning.reason !== "ENOENT") {
      found.warnings.push(ruleWarning(warning.path, { code: "nested-folder-unreadable", reason: warning.reason }));
    }
  }
  return result;
}
