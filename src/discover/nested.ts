/**
 * Rules folders below the directory (Cursor's `.cursor/rules`, Windsurf's
 * `.windsurf/rules` in sub-folders of the project), and the scoping of a
 * sub-folder's rules to that folder.
 *
 * The search is one walk of the project's tree per load, shared by the
 * sources that look for nested folders: breadth first, in name order, within
 * NESTED_SEARCH. Hidden folders, symlinks, SKIPPED_FOLDERS and what git
 * ignores (`.gitignore` at every level, `.git/info/exclude`) are not entered.
 *
 * A sub-folder's rules belong to it: `pkg/a/.cursor/rules/x.mdc` is named
 * `pkg/a/x`, its globs are made relative to the project root (`*.ts` →
 * `pkg/a/**\/*.ts`, `src/**` → `pkg/a/src/**`, `/index.ts` → `pkg/a/index.ts`),
 * and a rule that would always apply, or be offered on request by its
 * description, applies to files under `pkg/a/**` instead: both tools attach a
 * sub-folder's rules when files of that folder are worked on, so such a rule
 * never reaches a session working elsewhere. Manual rules stay manual.
 */
import { join, relative, sep } from "node:path";
import { GLOB_KEYS, readList } from "../rule/parse.js";
import { ruleWarning, type RuleWarning } from "../rule/warnings.js";
import { hasDescription, projectRootOf, without } from "./common.js";
import type { RuleFs } from "./fs.js";
import { ignoresAbove } from "./gitignore.js";
import { prefetch } from "./probe.js";
import type { FoundRules, SourceContext } from "./source.js";
import { walkBudget, walkProjectTree } from "./walk.js";

/**
 * Bounds of the search below the directory, so a huge tree cannot stall
 * loading. The 100,000-file repository of bench/nested.ts has 5,207 folders
 * to search (outside its dependencies, build output and ignored folders), a
 * fifth of the folder limit; rules folders sit at package roots, well above
 * the depth limit.
 */
export const NESTED_SEARCH = { maxDepth: 8, maxFolders: 25_000 };

export interface NestedSearch {
  /** Folders strictly below the directory with an entry named `name` (`.cursor`), breadth first, in name order. */
  holding(name: string): string[];
  /** The search's own problems: given to the first source that asked, so a load reports them once. */
  warnings: RuleWarning[];
}

interface Tree {
  /** Per hidden entry name, the folders below the directory that have it: the rules folders' first parts are hidden. */
  foldersByEntry: Map<string, string[]>;
  warnings: RuleWarning[];
}

/** The searches of one load, by the load's file system (`probingFs`): each source of the load gets the same walk. */
const searches = new WeakMap<RuleFs, Map<string, Promise<Tree>>>();

/**
 * The search below the directory, started by the first source that asks.
 * Call it before the source's first `await`: discovery starts the sources in
 * precedence order, so the first of them reports the search's warnings.
 */
export function searchBelowDirectory(context: SourceContext): Promise<NestedSearch> {
  const perLoad = searchesOf(context.fs);
  const key = `${projectRootOf(context)}\0${context.directory}`;
  const known = perLoad?.get(key);
  const tree = known ?? walkBelow(context);
  if (!known) perLoad?.set(key, tree);
  return tree.then(({ foldersByEntry, warnings }) => ({
    holding: (name) => foldersByEntry.get(name) ?? [],
    warnings: known ? [] : warnings,
  }));
}

/** The searches of the load whose file system this is; none for a plain file system (a direct call walks afresh). */
function searchesOf(fs: RuleFs): Map<string, Promise<Tree>> | undefined {
  if (!("prefetch" in fs)) return undefined;
  let perLoad = searches.get(fs);
  if (!perLoad) {
    perLoad = new Map();
    searches.set(fs, perLoad);
  }
  return perLoad;
}

async function walkBelow(context: SourceContext): Promise<Tree> {
  const start = context.directory;
  const foldersByEntry = new Map<string, string[]>();
  const walk = await walkProjectTree(start, context.fs, {
    // The directory is level 0: its sub-folders down to level maxDepth are searched.
    maxDepth: NESTED_SEARCH.maxDepth + 1,
    budget: walkBudget({ folders: NESTED_SEARCH.maxFolders, entries: Infinity, files: Infinity }),
    gitignore: await ignoresAbove(context.fs, projectRootOf(context), start),
    onFolder: (dir, _relPath, entries) => {
      if (dir === start) return;
      for (const entry of entries) {
        if (!entry.name.startsWith(".")) continue;
        const folders = foldersByEntry.get(entry.name);
        if (folders) folders.push(dir);
        else foldersByEntry.set(entry.name, [dir]);
      }
    },
  });
  // The search's own problems, worded for it; the directory itself is other sources' to report.
  const warnings: RuleWarning[] = [];
  for (const warning of walk.warnings) {
    if (warning.code === "walk-limit") warnings.push(ruleWarning(start, { code: "nested-search-limit", maxFolders: NESTED_SEARCH.maxFolders }));
    else if (warning.code === "subfolder-unreadable" && warning.path !== start && warning.reason !== "ENOENT") {
      warnings.push(ruleWarning(warning.path, { code: "nested-folder-unreadable", reason: warning.reason }));
    }
  }
  return { foldersByEntry, warnings };
}

/**
 * The sub-folders the search found holding `rulesFolder` (`.cursor/rules`),
 * in its order, with their rules folders prefetched; the search's warnings
 * (only the first source to ask gets any) join the source's.
 */
export async function nestedLevels(search: Promise<NestedSearch>, rulesFolder: string, found: FoundRules, fs: RuleFs): Promise<string[]> {
  const nested = await search;
  found.warnings.push(...nested.warnings);
  const levels = nested.holding(rulesFolder.split("/")[0] as string);
  prefetch(
    fs,
    levels.map((level) => join(level, rulesFolder)),
  );
  return levels;
}

/** `pkg/a` for the folder `<root>/pkg/a`; "" for the root itself or a folder outside it. */
export function folderPrefix(root: string, folder: string): string {
  const rel = relative(root, folder);
  return rel === "" || rel.startsWith("..") ? "" : rel.split(sep).join("/");
}

/** `pkg/a` for a rule file shown as `pkg/a/.cursor/rules/x.mdc` with `rulesFolder` `.cursor/rules`; "" at the project root. */
export function prefixOf(displayPath: string, rulesFolder: string): string {
  const at = displayPath.indexOf(`/${rulesFolder}/`);
  return at > 0 ? displayPath.slice(0, at) : "";
}

/** A sub-folder's rule's conditions, relative to the project root and limited to its folder. */
export function scopeToFolder(data: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const globs: string[] = [];
  for (const key of GLOB_KEYS) {
    const list = readList(data[key]);
    if (list === undefined) return data; // Malformed: the common reader reports it and skips the rule.
    globs.push(...list);
  }
  const rest = without(data, ...GLOB_KEYS);
  const keywords = readList(data.keywords) ?? [];
  const describedOnly = data.alwaysApply === false && globs.length === 0 && keywords.length === 0 && hasDescription(data);
  if (data.alwaysApply === true || describedOnly || (data.alwaysApply === undefined && globs.length === 0 && keywords.length === 0)) {
    return { ...without(rest, "alwaysApply"), globs: [`${prefix}/**`] };
  }
  return globs.length > 0 ? { ...rest, globs: globs.map((glob) => prefixGlob(glob, prefix)) } : rest;
}

/**
 * A glob of a rule in the folder `prefix`, relative to the project root:
 * one starting with `/` or `./`, or holding a `/`, is relative to the folder;
 * a bare one (`*.ts`) matches at any depth below it. At the root (prefix ""),
 * only the leading `/` or `./` goes.
 */
export function prefixGlob(glob: string, prefix: string): string {
  if (glob.startsWith("!")) return `!${prefixGlob(glob.slice(1), prefix)}`;
  const anchored = glob.replace(/^\.?\//, "");
  if (prefix === "") return anchored;
  if (anchored !== glob || glob.includes("/")) return `${prefix}/${anchored}`;
  return `${prefix}/**/${glob}`;
}
