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
import { errorCode, errorReason } from "./fs.js";
import { addFolder, addSingleFile, emptyFound, MARKDOWN_OR_MDC, projectLevels, projectRootOf, without } from "./common.js";
import type { FoundRuleFile, FoundRules, RuleSource, SourceContext } from "./source.js";


/** Folders never searched for nested `.cursor/rules`: dependencies and build output. */
const SKIPPED_FOLDERS = new Set(["node_modules", "dist", "build", "out", "target", "vendor", "coverage", "__pycache__", "venv"]);
/** Bounds of the search below the directory, so a huge tree cannot stall loading. */
export const NESTED_SEARCH = { maxDepth: 8, maxFolders: 2000 };

export const cursorSource: RuleSource = {
  id: "cursor",
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    await addFolder(found, context, { folder: join(context.home, ".cursor", "rules"), scope: "global", source: "cursor", accept: MARKDOWN_OR_MDC });
    const root = projectRootOf(context);
    const levels = projectLevels(context);
    const nested = await nestedFolders(context, found);
    for (const level of [...levels, ...nested]) {
      const prefix = folderPrefix(root, level);
      const named = (name: string) => (prefix ? `${prefix}/${name}` : name);
      await addFolder(found, context, {
        folder: join(level, ".cursor", "rules"),
        scope: "project",
        source: "cursor",
        accept: MARKDOWN_OR_MDC,
        nameOf: (relPath) => named(relPath.replace(/\.(md|mdc)$/i, "")),
      });
      await addSingleFile(found, context, { path: join(level, ".cursorrules"), scope: "project", source: "cursor", name: named("cursorrules") });
    }
    return found;
  },
  mapFrontMatter(data: Record<string, unknown>, file: FoundRuleFile): Record<string, unknown> {
    let mapped = data;
    if (basename(file.path) === ".cursorrules") mapped = { ...data, alwaysApply: true };
    const prefix = file.scope === "project" ? nestedPrefix(file.displayPath) : "";
    return prefix ? scopeToFolder(mapped, prefix) : mapped;
  },
};

/** `pkg/a` for `pkg/a/.cursor/rules/x.mdc` or `pkg/a/.cursorrules`; "" at the project root. */
function nestedPrefix(displayPath: string): string {
  const inRules = displayPath.indexOf("/.cursor/rules/");
  if (inRules > 0) return displayPath.slice(0, inRules);
  if (displayPath.endsWith("/.cursorrules")) return displayPath.slice(0, -"/.cursorrules".length);
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
  const result: string[] = [];
  let queue: string[] = [context.directory];
  let visited = 0;
  for (let depth = 0; depth <= NESTED_SEARCH.maxDepth && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const folder of queue) {
      if (visited >= NESTED_SEARCH.maxFolders) {
        found.warnings.push({ path: context.directory, message: `more than ${NESTED_SEARCH.maxFolders} folders below the project; nested .cursor/rules folders past them were not searched` });
        return result;
      }
      visited++;
      let entries;
      try {
        entries = await context.fs.readdir(folder);
      } catch (error) {
        if (folder !== context.directory && errorCode(error) !== "ENOENT") {
          found.warnings.push({ path: folder, message: `folder cannot be read (${errorReason(error)}); nested Cursor rules in it were not searched` });
        }
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (folder !== context.directory && entries.some((entry) => entry.name === ".cursor" || entry.name === ".cursorrules")) result.push(folder);
      for (const entry of entries) {
        if (entry.isDirectory() && !entry.name.startsWith(".") && !SKIPPED_FOLDERS.has(entry.name)) next.push(join(folder, entry.name));
      }
    }
    queue = next;
  }
  return result;
}
