/**
 * What the sources share: the project's levels, turning walked files into
 * candidates, and reading one fixed rule file (`.cursorrules` and the like).
 */
import { basename, dirname } from "node:path";
import { codeMask } from "../rule/markdown-code.js";
import { readList } from "../rule/parse.js";
import type { RuleScope } from "../rule/rule.js";
import { ruleWarning } from "../rule/warnings.js";
import { errorCode, errorReason } from "./fs.js";
import { displayPath, foldersFromRoot, projectRoot } from "./locations.js";
import type { FoundRuleFile, FoundRules, FrontMatterFacts, MapperWarn, SourceContext } from "./source.js";
import { allowsRealPath, type Boundary, type Trust } from "./trust.js";
import { walkFolder } from "./walk.js";

/** The folder globs are relative to: the worktree root when the directory is inside it. */
export function projectRootOf(context: Pick<SourceContext, "directory" | "worktree">): string {
  return projectRoot(context.directory, context.worktree);
}

/** The folders from the project root down to the directory, root first. */
export function projectLevels(context: SourceContext): string[] {
  return foldersFromRoot(context.directory, context.worktree);
}

export function emptyFound(): Required<FoundRules> {
  return { files: [], warnings: [], folders: [], userFolders: [] };
}

/** The repository's real root: discovery resolves it once; a source called on its own resolves it here. */
export async function realRootOf(context: SourceContext): Promise<string> {
  if (context.realRoot) return context.realRoot;
  const root = projectRootOf(context);
  return context.fs.realpath(root).catch(() => root);
}

/** A project file is the repository's, a global one the user's, unless the source says otherwise. */
function trustOf(spec: { scope: RuleScope; trust?: Trust }): Trust {
  return spec.trust ?? (spec.scope === "project" ? "repository" : "user");
}

async function boundaryOf(context: SourceContext, trust: Trust): Promise<Boundary> {
  return { trust, realRoot: await realRootOf(context) };
}

export const MARKDOWN = (name: string) => /\.md$/i.test(name);
export const MARKDOWN_OR_MDC = (name: string) => /\.(md|mdc)$/i.test(name);

export interface FolderSpec {
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
}

/** Walks a rules folder and adds its rule files as candidates. */
export async function addFolder(found: Required<FoundRules>, context: SourceContext, spec: FolderSpec): Promise<void> {
  const trust = trustOf(spec);
  const boundary = trust === "repository" ? await boundaryOf(context, trust) : undefined;
  const walk = await walkFolder(spec.folder, context.fs, { accept: spec.accept, boundary, budget: context.walkBudget });
  found.warnings.push(...walk.warnings);
  // A folder refused by the boundary is neither watched nor a place references may lead.
  if (walk.refused) return;
  found.folders.push(spec.folder);
  if (trust === "user") found.userFolders.push(spec.folder);
  const root = spec.scope === "project" ? projectRootOf(context) : "";
  const nameOf = spec.nameOf ?? ((relPath: string) => relPath.replace(/\.(md|mdc)$/i, ""));
  for (const file of walk.files) {
    if (spec.topLevelOnly && file.relPath.includes("/")) continue;
    found.files.push({
      name: nameOf(file.relPath),
      scope: spec.scope,
      source: spec.source,
      path: file.path,
      displayPath: displayPath(file.path, root, context.home),
      relPath: file.relPath,
      size: file.size,
      trust,
    });
  }
}

/** What is at a path: nothing, a regular file (with its size), a folder, or a warning already recorded. */
export type PathKind = { kind: "none" } | { kind: "file"; size: number } | { kind: "folder" };

export async function kindOf(path: string, context: SourceContext, found: FoundRules): Promise<PathKind> {
  let stat;
  try {
    stat = await context.fs.stat(path);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR") found.warnings.push(ruleWarning(path, { code: "path-unreadable", reason: errorReason(error) }));
    return { kind: "none" };
  }
  if (stat.isFile()) return { kind: "file", size: stat.size };
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
        ruleWarning(spec.path, realPath === undefined ? { code: "path-unresolvable" } : { code: "outside-repository", realPath, realRoot: boundary.realRoot, what: "file" }),
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
    trust,
  };
  found.files.push(file);
  return kind;
}

/** Keys other tools scope a rule with that Claude Code and Cline do not read: they read `paths` only. */
const NOT_PATHS = ["globs", "applyTo", "fileMatchPattern", "alwaysApply"];

/** `keys` of `data` its tool does not read, each with a warning naming the key it reads instead; they are dropped. */
export function ignoredByTool(
  data: Record<string, unknown>,
  keys: readonly string[],
  facts: { tool: string; reads: string; alwaysOn: boolean },
  warn: MapperWarn,
  front: FrontMatterFacts,
): Record<string, unknown> {
  const ignored = keys.filter((key) => data[key] !== undefined && data[key] !== null);
  for (const key of ignored) warn({ code: "key-ignored-by-tool", key, ...facts, line: front.lineOf(key) });
  return ignored.length === 0 ? data : without(data, ...ignored);
}

/**
 * Front matter for a tool that reads only `paths` (Claude Code, Cline): the
 * keys it ignores are ignored here too, with a warning naming them, so a rule
 * without `paths` is always on there and here. The plugin's own keys
 * (`keywords`, `priority`, …) are kept: nothing in those tools reads them,
 * so only someone writing for this plugin puts them there.
 */
export function readPathsOnly(data: Record<string, unknown>, tool: string, warn: MapperWarn, front: FrontMatterFacts): Record<string, unknown> {
  const paths = anchoredAtRoot(data.paths);
  const alwaysOn = (readList(data.paths) ?? []).length === 0 && (readList(data.keywords) ?? []).length === 0 && (readList(data.topics) ?? []).length === 0;
  const read = ignoredByTool(data, NOT_PATHS, { tool, reads: "paths", alwaysOn }, warn, front);
  return paths === undefined ? read : { ...read, paths };
}

/**
 * Globs as tools that match them against the whole project-relative path
 * read them (Claude Code, Cline, Copilot: `*.md` is "Markdown files in the
 * project root"): one without a slash is anchored at the root (`./*.md`),
 * where this plugin's own globs match at any depth. Undefined when the value
 * has no such glob or is not a list (the common reader reports that).
 */
export function anchoredAtRoot(value: unknown): string[] | undefined {
  const globs = readList(value);
  if (globs === undefined || !globs.some(matchesAtAnyDepth)) return undefined;
  return globs.map((glob) => {
    if (!matchesAtAnyDepth(glob)) return glob;
    return glob.startsWith("!") ? `!./${glob.slice(1)}` : `./${glob}`;
  });
}

const matchesAtAnyDepth = (glob: string) => !glob.includes("/");

/** How a `paths`-only tool names what a rule is: scoped by `paths`, or always. */
export function pathsType(data: Record<string, unknown>): string {
  return (readList(data.paths) ?? []).length > 0 ? "paths" : "always";
}

/** A rule's name (its file's) and its body: what a rule is offered by when it has no description. */
export interface NamedText {
  name: string;
  body: string;
}

/** The front matter has a description with some text in it. */
export function hasDescription(data: Record<string, unknown>): boolean {
  return typeof data.description === "string" && data.description.trim() !== "";
}

/**
 * A rule the model picks by relevance (Kiro `auto`, Windsurf
 * `model_decision`), mapped to `mapped`: without a description of its own
 * (in `data`, as written), it is listed by `describedByName`.
 */
export function describedOrNamed(mapped: Record<string, unknown>, data: Record<string, unknown>, rule: NamedText, toolName = ""): Record<string, unknown> {
  return hasDescription(data) ? mapped : { ...mapped, description: describedByName(rule, toolName) };
}

/**
 * What a rule the model picks by relevance is listed by when it has no
 * description: the tool's own `name` when it differs from the file's, then
 * the body's first heading; else the name alone.
 */
function describedByName(rule: NamedText, toolName = ""): string {
  const named = toolName !== "" && toolName !== rule.name ? toolName : "";
  const heading = firstHeading(rule.body);
  if (heading && named) return `${named}: ${heading}`;
  return heading ?? (named || rule.name);
}

/** The text of the first ATX heading (`# Title`) outside code fences. */
export function firstHeading(body: string): string | undefined {
  const lines = body.split("\n");
  const mask = codeMask(lines);
  for (const [i, line] of lines.entries()) {
    if (mask[i]?.fenced) continue;
    const text = /^ {0,3}#{1,6}[ \t]+(.*)$/.exec(line)?.[1];
    if (text === undefined) continue;
    // The closing `#`s and blanks, taken off by hand: a pattern for them would backtrack on a long line of them.
    let end = text.length;
    while (end > 0 && " \t#".includes(text[end - 1] as string)) end--;
    const heading = text.slice(0, end).trim();
    if (heading) return heading;
  }
  return undefined;
}

/** Removes `keys` from a copy of `data`. */
export function without(data: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = { ...data };
  for (const key of keys) delete copy[key];
  return copy;
}
