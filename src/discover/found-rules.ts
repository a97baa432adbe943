/**
 * What a source finds: turning walked files into candidates, and reading one
 * fixed rule file (`.cursorrules` and the like).
 */
import { basename, dirname, isAbsolute, join } from "node:path";
import type { RulePack, RuleScope } from "../rule/rule.js";
import { ruleWarning } from "../rule/warnings.js";
import { errorCode, errorReason, fileVersion, type FileVersion } from "./fs.js";
import { displayPath } from "./locations.js";
import { prefetch } from "./probe.js";
import { projectLevels, projectRootOf, realRootOf } from "./project.js";
import type { FoundRuleFile, FoundRules, SourceContext } from "./source.js";
import { isNormalPath } from "../rule/relative-path.js";
import { allowsRealPath, type Boundary, type Trust, trustOf } from "../rule/trust.js";
import { walkFolder } from "./walk.js";

/** The plugin's own rule files (`.opencode/rules`, `extraDirs`, the managed folder, packs) and Cursor's. */
export const MARKDOWN_OR_MDC = (name: string) => /\.(md|mdc)$/i.test(name);

export function emptyFound(): Required<FoundRules> {
  return { files: [], warnings: [], folders: [], userFolders: [] };
}

async function boundaryOf(context: SourceContext, trust: Trust): Promise<Boundary> {
  return { trust, realRoot: await realRootOf(context) };
}

interface FolderSpec {
  folder: string;
  scope: RuleScope;
  source: string;
  /** Which file names are rule files. */
  accept: (name: string) => boolean;
  /** The rule's name from its path inside the folder; default: without `.md` / `.mdc`. */
  nameOf?: (relPath: string) => string;
  /** Only files directly in the folder, not in sub-folders. */
  topLevelOnly?: boolean;
  /** Whose files these are; default: the repository's in project scope, the user's in global scope. */
  trust?: Trust;
  /**
   * The pack the folder is (its files' displayed paths start with `displayPrefix`, the pack's label and the folder's
   * path in it).
   */
  pack?: { pack: RulePack; displayPrefix: string };
}

/** Walks a rules folder and adds its rule files as candidates. */
export async function addFolder(found: Required<FoundRules>, context: SourceContext, spec: FolderSpec): Promise<void> {
  const trust = trustOf(spec);
  const boundary = trust === "repository" || context.confined ? await boundaryOf(context, "repository") : undefined;
  const walk = await walkFolder(spec.folder, context.fs, { accept: spec.accept, boundary, budget: context.walkBudget });
  found.warnings.push(...walk.warnings);
  // A folder refused by the boundary is neither watched nor a place references may lead.
  if (walk.refused) return;
  found.folders.push(spec.folder);
  if (trust === "user" && !context.confined) found.userFolders.push(spec.folder);
  const root = spec.scope === "project" ? projectRootOf(context) : "";
  const nameOf = spec.nameOf ?? ((relPath: string) => relPath.replace(/\.(md|mdc)$/i, ""));
  const shownIn = projectDisplay(spec.folder, root);
  for (const file of walk.files) {
    if (spec.topLevelOnly && file.relPath.includes("/")) continue;
    found.files.push({
      name: nameOf(file.relPath),
      scope: spec.scope,
      source: spec.source,
      path: file.path,
      displayPath: spec.pack
        ? `${spec.pack.displayPrefix}/${file.relPath}`
        : (shownIn?.(file.path, file.relPath) ?? displayPath(file.path, root, context.home)),
      relPath: file.relPath,
      size: file.size,
      version: file.version,
      trust,
      ...(spec.pack ? { pack: spec.pack.pack } : {}),
    });
  }
}

/**
 * How a file of a rules folder inside the project is shown, from the folder's own display path: the folder's path and
 * the file's path inside it, as `displayPath` would give them (worked out once per folder, not per file). Undefined
 * when the folder is not a normal path inside the project root (`displayPath` then shows each file).
 */
const SLASH = 0x2f;

function projectDisplay(
  folder: string,
  root: string,
): ((path: string, relPath: string) => string | undefined) | undefined {
  if (!root || !isNormalPath(folder) || !isNormalPath(root)) return undefined;
  const shown = displayPath(folder, root, "");
  if (shown.startsWith("..") || isAbsolute(shown)) return undefined;
  const prefix = shown === "" ? "" : `${shown}/`;
  // Only a file the walk named `<folder>/<relPath>`: any other path is shown by `displayPath`.
  return (path, relPath) =>
    path.length === folder.length + 1 + relPath.length &&
    path.charCodeAt(folder.length) === SLASH &&
    path.startsWith(folder) &&
    path.endsWith(relPath)
      ? prefix + relPath
      : undefined;
}

/**
 * A tool's rules folder in the user's home (global) and at every project
 * level from the repository root down (`~/.claude/rules`, `.claude/rules`):
 * the layout most tools share.
 */
export function findHomeAndLevelFolders(
  context: SourceContext,
  folder: string,
  spec: Omit<FolderSpec, "folder" | "scope">,
): Promise<Required<FoundRules>> {
  return findLevelFolders(context, folder, spec, { home: true });
}

/**
 * A tool's rules folder at every project level from the repository root down (`.amazonq/rules`), and in the home folder
 * when `home`.
 */
export async function findLevelFolders(
  context: SourceContext,
  folder: string,
  spec: Omit<FolderSpec, "folder" | "scope">,
  { home = false }: { home?: boolean } = {},
): Promise<Required<FoundRules>> {
  const found = emptyFound();
  const levels = projectLevels(context);
  prefetch(
    context.fs,
    [...(home ? [context.home] : []), ...levels].map((base) => join(base, folder)),
  );
  if (home) await addFolder(found, context, { ...spec, folder: join(context.home, folder), scope: "global" });
  for (const level of levels)
    await addFolder(found, context, { ...spec, folder: join(level, folder), scope: "project" });
  return found;
}

/** What is at a path: nothing, a regular file (with its size), a folder, or a warning already recorded. */
type PathKind = { kind: "none" } | { kind: "file"; size: number; version?: FileVersion } | { kind: "folder" };

async function kindOf(path: string, context: SourceContext, found: FoundRules): Promise<PathKind> {
  let stat;
  try {
    stat = await context.fs.stat(path);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR")
      found.warnings.push(ruleWarning(path, { code: "path-unreadable", reason: errorReason(error) }));
    return { kind: "none" };
  }
  if (stat.isFile()) return { kind: "file", size: stat.size, version: fileVersion(stat) };
  if (stat.isDirectory()) return { kind: "folder" };
  found.warnings.push(ruleWarning(path, { code: "not-regular-file" }));
  return { kind: "none" };
}

/**
 * Adds one fixed rule file (`.cursorrules`, `copilot-instructions.md`, …)
 * under a fixed name when it exists. Returns what was at the path.
 */
export async function addSingleFile(
  found: Required<FoundRules>,
  context: SourceContext,
  spec: { path: string; scope: RuleScope; source: string; name: string; trust?: Trust },
): Promise<PathKind> {
  const kind = await kindOf(spec.path, context, found);
  if (kind.kind !== "file") return kind;
  const trust = trustOf(spec);
  if (trust === "repository") {
    const boundary = await boundaryOf(context, trust);
    const realPath = await context.fs.realpath(spec.path).catch(() => undefined);
    if (realPath === undefined || !allowsRealPath(boundary, realPath)) {
      found.warnings.push(
        ruleWarning(
          spec.path,
          realPath === undefined
            ? { code: "path-unresolvable" }
            : { code: "outside-repository", realPath, realRoot: boundary.realRoot, what: "file" },
        ),
      );
      return { kind: "none" };
    }
  }
  found.folders.push(dirname(spec.path));
  if (trust === "user") found.userFolders.push(dirname(spec.path));
  const root = spec.scope === "project" ? projectRootOf(context) : "";
  const file: FoundRuleFile = {
    name: spec.name,
    scope: spec.scope,
    source: spec.source,
    path: spec.path,
    displayPath: displayPath(spec.path, root, context.home),
    relPath: basename(spec.path),
    size: kind.size,
    version: kind.version,
    trust,
  };
  found.files.push(file);
  return kind;
}
