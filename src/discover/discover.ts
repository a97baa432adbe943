/**
 * Discovery: ask every source for its rule files, read each one (bounded in
 * size and in files open at once) and parse it. One file's problem is a
 * warning; the other rules still load.
 */
import { decodeRuleText } from "../rule/decode.js";
import { parseRule, type FrontMatterMapper, type ParsedRule } from "../rule/parse.js";
import { mayHaveReferences, REFERENCE_SYNTAXES } from "../rule/reference-syntax.js";
import { expandReferences, type ReadResult, type RealPathResult, type ReferenceOptions } from "../rule/references.js";
import type { Rule } from "../rule/rule.js";
import type { Trust } from "../rule/trust.js";
import { ruleSkipped, ruleWarning, type FactsWithout, type RuleWarning } from "../rule/warnings.js";
import { errorCode, errorReason } from "./fs.js";
import { globalRulesDir, openCodeConfigDir } from "./locations.js";
import { probingFs } from "./probe.js";
import { projectRootOf, realRootOf } from "./project.js";
import { readAndSettle, type Settled } from "./read-settle.js";
import type { FoundRuleFile, MapperWarn, RuleSource, SourceContext } from "./source.js";
import { walkBudget } from "./walk-limits.js";

export interface DiscoveryContext extends SourceContext {
  /** A larger file is skipped without being read. */
  maxRuleBytes: number;
}

export interface Discovery {
  rules: Rule[];
  warnings: RuleWarning[];
  /** Every rule file found, in order, including those later skipped. */
  files: FoundRuleFile[];
  /** Every rules folder the sources looked in (some may not exist), without repeats. */
  folders: string[];
  /** Real paths of the files rules include through references (`@file.md`, `#[[file:…]]`). */
  references: string[];
  /** The rules folders and rule files the sources probed: true for a folder (what the watcher would stat again). */
  probed: ReadonlyMap<string, boolean>;
}

export const DEFAULT_MAX_RULE_BYTES = 64 * 1024;
const FILES_OPEN_AT_ONCE = 32;

export async function discoverRules(context: DiscoveryContext, sources: RuleSource[]): Promise<Discovery> {
  const fs = probingFs(context.fs);
  const probing: DiscoveryContext = { ...context, fs };
  const discovery: Discovery = { rules: [], warnings: [], files: [], folders: [], references: [], probed: fs.folders };
  const found: Array<{ file: FoundRuleFile; source: RuleSource }> = [];
  // The repository's real root is resolved once (the file system keeps it for the load), while the sources start.
  const resolving = realRootOf(probing);
  // Sources look in different folders: they search at once, each within its own walk budget, and their results are taken in precedence order.
  const results = await Promise.all(sources.map((source) => source.find({ ...probing, walkBudget: walkBudget() })));
  const realRoot = await resolving;
  const userFolders: string[] = [];
  const toldWarnings = new Set<string>();
  for (const [index, source] of sources.entries()) {
    const result = results[index] as Awaited<ReturnType<RuleSource["find"]>>;
    for (const file of result.files) found.push({ file, source });
    // Two sources may walk one folder (`.agents/rules` is Antigravity's and often an `extraDirs` folder): its problems are told once.
    for (const warning of result.warnings) {
      const told = JSON.stringify(warning);
      if (toldWarnings.has(told)) continue;
      toldWarnings.add(told);
      discovery.warnings.push(warning);
    }
    for (const folder of result.folders ?? []) if (!discovery.folders.includes(folder)) discovery.folders.push(folder);
    userFolders.push(...(result.userFolders ?? []));
  }
  const unique = oncePerPath(found);
  discovery.files = unique.map(({ file }) => file);
  // Resolved once per trust, and only when some rule holds a reference.
  const reach = new Map<Trust, Promise<Reach>>();
  const reachOf = (trust: Trust) => {
    const known = reach.get(trust);
    if (known) return known;
    const once = reachFor(trust, { ...probing, realRoot }, userFolders);
    reach.set(trust, once);
    return once;
  };
  const parsed = await readAndSettle(
    unique,
    FILES_OPEN_AT_ONCE,
    ({ file }) => readBytes(file, probing),
    ({ file, source }, got) => parseRead(file, source, probing, reachOf, got),
  );
  for (const result of parsed) {
    discovery.warnings.push(...result.warnings);
    if (result.rule) discovery.rules.push(result.rule);
    for (const path of result.references) if (!discovery.references.includes(path)) discovery.references.push(path);
  }
  return discovery;
}

/**
 * One candidate per file: when the home folder is also a project folder,
 * `~/.cursor/rules` is found by both scopes; the project one is kept.
 */
function oncePerPath<T extends { file: FoundRuleFile }>(found: T[]): T[] {
  const byPath = new Map<string, number>();
  const kept: Array<T | undefined> = [];
  for (const entry of found) {
    const earlier = byPath.get(entry.file.path);
    if (earlier === undefined) {
      byPath.set(entry.file.path, kept.length);
      kept.push(entry);
    } else if (kept[earlier]?.file.scope === "global" && entry.file.scope === "project") {
      kept[earlier] = undefined;
      byPath.set(entry.file.path, kept.length);
      kept.push(entry);
    }
  }
  return kept.filter((entry): entry is T => entry !== undefined);
}

/** Where a rule's references may lead (README, "Security"). */
interface Reach {
  allowed: string[];
  allowedReal: string[];
  trust: Trust;
}

/**
 * A repository's rule: the repository only, its real path checked against
 * the repository's real root. A user's rule: the global rules folder, the
 * OpenCode config folder and the user's other rule folders, as given and as
 * real paths (the user's own symlinks are followed).
 */
async function reachFor(trust: Trust, context: DiscoveryContext & { realRoot: string }, userFolders: readonly string[]): Promise<Reach> {
  if (trust === "repository") {
    return { allowed: [projectRootOf(context), context.realRoot], allowedReal: [context.realRoot], trust };
  }
  const folders = new Set<string>();
  for (const folder of [globalRulesDir(context.env, context.home), openCodeConfigDir(context.env, context.home), ...userFolders]) {
    folders.add(folder);
    try {
      folders.add(await context.fs.realpath(folder));
    } catch {
      // A folder that does not exist holds nothing a reference could reach.
    }
  }
  return { allowed: [...folders], allowedReal: [...folders], trust };
}

type ReadRule = ParsedRule & { references: string[] };

/** A rule file's bytes, or why its rule is skipped: bounded in size before and after the read. */
async function readBytes(file: FoundRuleFile, context: DiscoveryContext): Promise<Read> {
  const { size } = file;
  if (size > context.maxRuleBytes) return skipped(file, { code: "rule-too-large", limit: context.maxRuleBytes, size });
  let bytes: Uint8Array;
  try {
    bytes = await context.fs.readFile(file.path, context.maxRuleBytes, size);
  } catch (error) {
    return skipped(file, { code: "rule-unreadable", reason: errorReason(error) });
  }
  // The file may have grown between the folder walk and the read.
  if (bytes.byteLength > context.maxRuleBytes) return skipped(file, { code: "rule-too-large", limit: context.maxRuleBytes });
  return { bytes };
}

type Read = { bytes: Uint8Array } | { skipped: ReadRule };

function skipped(file: FoundRuleFile, facts: FactsWithout<"rule">): Read {
  return { skipped: { warnings: [ruleSkipped(file.path, file.name, facts)], references: [] } };
}

/** The rule from its file's bytes; a rule that may hold references has them read later. */
function parseRead(file: FoundRuleFile, source: RuleSource, context: DiscoveryContext, reachOf: (trust: Trust) => Promise<Reach>, read: Read): Settled<ReadRule> {
  if ("skipped" in read) return { value: read.skipped };
  const candidate = { name: file.name, scope: file.scope, source: file.source, tool: source.tool, path: file.path, displayPath: file.displayPath };
  const mapperWarnings: RuleWarning[] = [];
  const warn = (facts: Parameters<MapperWarn>[0]) => mapperWarnings.push(ruleWarning(file.path, facts));
  const { mapFrontMatter, typeOf } = source;
  const mapper: FrontMatterMapper | undefined =
    mapFrontMatter || typeOf
      ? ({ data, ...front }) => ({
          data: mapFrontMatter ? mapFrontMatter.call(source, data, file, warn, front) : data,
          toolType: typeOf?.call(source, data, file, front),
        })
      : undefined;
  const parsed = parseRule(candidate, read.bytes, mapper, source.frontMatter?.(file));
  const warnings = [...mapperWarnings, ...parsed.warnings];
  const rule = parsed.rule;
  if (!rule) return { value: { warnings, references: [] } };
  if (rule.unknownKeys.length > 0) warnings.push(ruleWarning(file.path, { code: "unknown-keys", keys: [...rule.unknownKeys] }));
  const syntaxes = source.references ?? REFERENCE_SYNTAXES;
  if (!mayHaveReferences(rule.content, syntaxes)) return { value: { rule, warnings, references: [] } };
  const roots = source.referenceRoots?.(file, context) ?? [];
  return { later: () => withReferences(file, rule, warnings, context, reachOf, { syntaxes, roots }) };
}

async function withReferences(
  file: FoundRuleFile,
  rule: Rule,
  warnings: RuleWarning[],
  context: DiscoveryContext,
  reachOf: (trust: Trust) => Promise<Reach>,
  format: Pick<ReferenceOptions, "syntaxes" | "roots">,
): Promise<ReadRule> {
  let realFile = file.path;
  try {
    realFile = await context.fs.realpath(file.path);
  } catch {
    // It was just read; keep the path as found.
  }
  const expanded = await expandReferences(rule.content, {
    ...format,
    file: file.path,
    realFile,
    ...(await reachOf(file.trust)),
    realpath: (path) => realpathOf(path, context),
    read: (path) => readReference(path, context),
    maxBytes: context.maxRuleBytes,
  });
  return { rule: { ...rule, content: expanded.text }, warnings: [...warnings, ...expanded.warnings], references: expanded.included };
}

async function realpathOf(path: string, context: DiscoveryContext): Promise<RealPathResult> {
  try {
    return { ok: true, realPath: await context.fs.realpath(path) };
  } catch (error) {
    const code = errorCode(error);
    return { ok: false, missing: code === "ENOENT" || code === "ENOTDIR", reason: errorReason(error) };
  }
}

/** A referenced file's text, read like a rule file: regular files only, bounded, UTF-8 only. */
async function readReference(realPath: string, context: DiscoveryContext): Promise<ReadResult> {
  try {
    const stat = await context.fs.stat(realPath);
    if (!stat.isFile()) return { ok: false, reason: "it is not a regular file" };
    const bytes = await context.fs.readFile(realPath, context.maxRuleBytes, stat.size);
    if (bytes.byteLength > context.maxRuleBytes) return { ok: false, reason: `it is over the ${context.maxRuleBytes}-byte limit` };
    const decoded = decodeRuleText(bytes);
    if (!decoded.ok) return { ok: false, reason: decoded.reason };
    return { ok: true, text: decoded.text };
  } catch (error) {
    return { ok: false, reason: errorCode(error) ?? String(error) };
  }
}
