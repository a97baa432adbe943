/**
 * Discovery: ask every source for its rule files, read each one (bounded in
 * size and in files open at once) and parse it. One file's problem is a
 * warning; the other rules still load.
 */
import type { ParsedRule } from "../rule/parse.js";
import { mayHaveReferences, REFERENCE_SYNTAXES } from "../rule/reference-syntax.js";
import type { Rule } from "../rule/rule.js";
import type { Trust } from "../rule/trust.js";
import { ruleSkipped, type FactsWithout, type RuleWarning } from "../rule/warnings.js";
import { createHash } from "node:crypto";
import { errorReason } from "./fs.js";
import { cachedParse, entryFor, parseContext, type CachedParse, type ParseCacheEntries } from "./parse-cache.js";
import { probingFs } from "./probe.js";
import { parseFile } from "./parse-file.js";
import { realRootOf } from "./project.js";
import { readAndSettle, type Settled } from "./read-settle.js";
import { reachFor, withReferences, type Reach } from "./rule-references.js";
import type { FoundRuleFile, RuleSource, SourceContext } from "./source.js";
import { walkBudget } from "./walk-limits.js";

export interface DiscoveryContext extends SourceContext {
  /** A larger file is skipped without being read. */
  maxRuleBytes: number;
  /** Parses kept from earlier loads (parse-cache.ts), awaited once the files are found; none: every file is read. */
  parseCache?: Promise<ParseCacheEntries>;
  /** The time, for parse-cache.ts (tests set it). */
  now?: () => number;
  /** Keep each rule file's digest (a pack's, whose hash the lock pins); its parse is kept with it. */
  digests?: boolean;
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
  /** The parses to keep for the next load: those taken from the cache and those made now (parse-cache.ts). */
  parses: Map<string, CachedParse>;
  /** With `digests`: each rule file read or kept, by path, its bytes' SHA-256 (hex). */
  digests: Map<string, string>;
}

export const DEFAULT_MAX_RULE_BYTES = 64 * 1024;
const FILES_OPEN_AT_ONCE = 32;

export async function discoverRules(context: DiscoveryContext, sources: RuleSource[]): Promise<Discovery> {
  const fs = probingFs(context.fs);
  const probing: DiscoveryContext = { ...context, fs };
  const discovery: Discovery = {
    rules: [],
    warnings: [],
    files: [],
    folders: [],
    references: [],
    probed: fs.folders,
    parses: new Map(),
    digests: new Map(),
  };
  const found: Array<{ file: FoundRuleFile; source: RuleSource }> = [];
  // The repository's real root is resolved once (the file system keeps it for the load), while the sources start.
  const resolving = realRootOf(probing);
  // Sources look in different folders: they search at once, each within its own walk budget, and their results are
  // taken in precedence order.
  const results = await Promise.all(sources.map((source) => source.find({ ...probing, walkBudget: walkBudget() })));
  const realRoot = await resolving;
  const userFolders: string[] = [];
  const toldWarnings = new Set<string>();
  for (const [index, source] of sources.entries()) {
    const result = results[index] as Awaited<ReturnType<RuleSource["find"]>>;
    for (const file of result.files) found.push({ file, source });
    // Two sources may walk one folder (`.agents/rules` is Antigravity's and often an `extraDirs` folder): its problems
    // are told once.
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
  const cache = (await context.parseCache) ?? new Map<string, CachedParse>();
  const now = (context.now ?? Date.now)();
  const parsed = await readAndSettle(
    unique,
    FILES_OPEN_AT_ONCE,
    ({ file, source }) => readUnlessKept(file, parseContext(source, file, context.maxRuleBytes), cache, probing),
    ({ file, source }, got) => {
      if ("skipped" in got) return { value: got.skipped };
      if ("kept" in got) {
        discovery.parses.set(file.path, got.kept);
        if (got.kept.digest !== undefined) discovery.digests.set(file.path, got.kept.digest);
        return withTheirReferences(file, source, probing, reachOf, got.kept.parsed);
      }
      const fileParse = parseFile(file, source, got.bytes);
      const digest = context.digests ? digestOf(got.bytes) : undefined;
      if (digest !== undefined) discovery.digests.set(file.path, digest);
      const entry = entryFor(file, got.key, fileParse, now, digest);
      if (entry) discovery.parses.set(file.path, entry);
      return withTheirReferences(file, source, probing, reachOf, fileParse);
    },
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

/** A file's bytes as a pack's hash counts them. */
export const digestOf = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

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
  if (bytes.byteLength > context.maxRuleBytes)
    return skipped(file, { code: "rule-too-large", limit: context.maxRuleBytes });
  return { bytes };
}

type Read = { bytes: Uint8Array } | { skipped: ReadRule };

/** A file's parse kept from an earlier load, or its bytes read now; `key`: its parse context. */
type Got = { key: string } & ({ kept: CachedParse } | Read);

function readUnlessKept(
  file: FoundRuleFile,
  key: string,
  cache: ParseCacheEntries,
  context: DiscoveryContext,
): Got | Promise<Got> {
  const kept = cachedParse(cache, file, key, context.digests);
  if (kept) return { key, kept };
  return readBytes(file, context).then((read) => ({ key, ...read }));
}

function skipped(file: FoundRuleFile, facts: FactsWithout<"rule">): Read {
  return { skipped: { warnings: [ruleSkipped(file.path, file.name, facts)], references: [] } };
}

/** The rule with its references read (later, within the reads' bound), when its text may hold some. */
function withTheirReferences(
  file: FoundRuleFile,
  source: RuleSource,
  context: DiscoveryContext,
  reachOf: (trust: Trust) => Promise<Reach>,
  parsed: ParsedRule,
): Settled<ReadRule> {
  const { rule, warnings } = parsed;
  if (!rule) return { value: { warnings, references: [] } };
  const syntaxes = source.references ?? REFERENCE_SYNTAXES;
  if (!mayHaveReferences(rule.content, syntaxes)) return { value: { rule, warnings, references: [] } };
  const roots = source.referenceRoots?.(file, context) ?? [];
  return { later: () => withReferences(file, rule, warnings, context, reachOf, { syntaxes, roots }) };
}
