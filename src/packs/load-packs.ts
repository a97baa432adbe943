/**
 * Every configured pack's rules, read like a rules folder each under its own
 * boundary, checked against its owner's lock, and named by their pack. A
 * pack that is missing or not as pinned is one warning; the others load.
 * No git, no network: only what `packs install` or npm already put on disk.
 */
import type { Discovery, DiscoveryContext } from "../discover/discover.js";
import { errorCode, errorReason, readRegularFile, type RuleFs } from "../discover/fs.js";
import type { CachedParse } from "../discover/parse-cache.js";
import type { FoundRuleFile } from "../discover/source.js";
import type { PackProblem } from "../rule/pack-problems.js";
import type { Rule } from "../rule/rule.js";
import { ruleWarning, type RuleWarning } from "../rule/warnings.js";
import type { ConfiguredPack } from "./configured.js";
import { type InstalledPack, resolvePack } from "./installed.js";
import { readLock, type PackLock } from "./lock.js";
import { parsePackSpec } from "./spec.js";
import { untrustedFiles } from "./managed-files.js";
import { readPack } from "./pack-rules.js";

/** What `packs list` tells of one configured pack. */
export interface PackReport {
  configured: ConfiguredPack;
  installed?: InstalledPack;
  problem?: PackProblem;
  /** The hash of the rules it holds now (installed packs). */
  hash?: string;
  rules: number;
}

export interface PackLoad {
  rules: Rule[];
  warnings: RuleWarning[];
  files: FoundRuleFile[];
  folders: string[];
  references: string[];
  probed: Map<string, boolean>;
  parses: Map<string, CachedParse>;
  packs: PackReport[];
}

/** A lock is small: more than this is not one. */
const LOCK_BYTES = 1024 * 1024;

export async function loadPacks(context: DiscoveryContext, packs: readonly ConfiguredPack[]): Promise<PackLoad> {
  const load: PackLoad = {
    rules: [],
    warnings: [],
    files: [],
    folders: [],
    references: [],
    probed: new Map(),
    parses: new Map(),
    packs: [],
  };
  if (packs.length === 0) return load;
  const locks = new Map<string, Promise<LockRead>>();
  const lockOf = (file: string) => locks.get(file) ?? locks.set(file, readLockFile(context.fs, file)).get(file)!;
  const realRoot = context.realRoot ?? (await context.fs.realpath(context.worktree).catch(() => context.worktree));
  const reports = await Promise.all(
    onePerSpec(packs).map((configured) => loadOne(configured, context, lockOf, realRoot)),
  );
  for (const { report, discovery } of reports) {
    load.packs.push(report);
    const { configured, problem, installed } = report;
    if (problem)
      load.warnings.push(
        ruleWarning(configured.place.configFile, {
          code: "pack-not-delivered",
          pack: configured.spec,
          problem,
          owner: configured.place.owner,
        }),
      );
    if (!discovery) continue;
    // A pack's parses are kept even when it is not delivered: the next start need not read it again.
    for (const [path, parse] of discovery.parses) load.parses.set(path, parse);
    for (const [path, seen] of discovery.probed) load.probed.set(path, seen);
    load.folders.push(...discovery.folders);
    load.references.push(...discovery.references);
    load.files.push(...discovery.files);
    load.warnings.push(...discovery.warnings);
    if (!problem && installed) load.rules.push(...discovery.rules);
  }
  return load;
}

/** A spec two owners name is read once, as the first's: the list comes most trusted first (pack-config.ts). */
function onePerSpec(packs: readonly ConfiguredPack[]): ConfiguredPack[] {
  const seen = new Set<string>();
  return packs.filter(({ spec }) => !seen.has(spec) && seen.add(spec));
}

type LockRead = { lock?: PackLock; problem?: PackProblem };

async function loadOne(
  configured: ConfiguredPack,
  context: DiscoveryContext,
  lockOf: (file: string) => Promise<LockRead>,
  realRoot: string,
): Promise<{ report: PackReport; discovery?: Discovery }> {
  const lockRead = await lockOf(configured.place.lockFile);
  // A lock that cannot be read pins nothing: its Git and npm packs wait for it to be mended.
  const parsed = parsePackSpec(configured.spec);
  if ("error" in parsed)
    return { report: { configured, problem: { kind: "spec-invalid", reason: parsed.error }, rules: 0 } };
  if (lockRead.problem && parsed.pack.kind !== "folder")
    return { report: { configured, problem: lockRead.problem, rules: 0 } };
  const resolution = await resolvePack(configured, parsed.pack, lockRead.lock, context.fs, {
    home: context.home,
    realRoot,
  });
  if ("problem" in resolution) return { report: { configured, problem: resolution.problem, rules: 0 } };
  const installed = resolution.installed;
  const { discovery, hash } = await readPack(context, installed);
  const report: PackReport = { configured, installed, hash, rules: discovery.rules.length };
  const locked = installed.locked;
  if (locked && locked.hash !== hash)
    report.problem = { kind: "hash-differs", locked: locked.hash, found: hash, from: locked.kind };
  // A managed pack is the administrator's as the managed folder is: every folder and file of it.
  if (configured.place.owner === "managed") {
    const untrusted = await untrustedFiles(context.fs, installed.root, [
      installed.rulesFolder,
      ...discovery.files.map((file) => file.path),
    ]);
    const reason = untrusted.values().next().value;
    if (reason !== undefined)
      report.problem = { kind: "unreadable", reason: `${reason}: anyone could plant managed rules there` };
  }
  return { report, discovery };
}

async function readLockFile(fs: RuleFs, file: string): Promise<LockRead> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(fs, file, LOCK_BYTES);
  } catch (error) {
    const code = errorCode(error);
    return code === "ENOENT" || code === "ENOTDIR"
      ? {}
      : { problem: { kind: "unreadable", reason: `${file}: ${errorReason(error)}` } };
  }
  const read = readLock(new TextDecoder().decode(bytes));
  return "error" in read ? { problem: { kind: "unreadable", reason: `${file}: ${read.error}` } } : { lock: read.lock };
}
