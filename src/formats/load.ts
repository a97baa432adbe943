/**
 * Loading the rule set: discovery from every enabled source, then one
 * precedence. The engine and the command line both load rules through here,
 * so they cannot disagree about which rules exist.
 */
import { type Discovery, discoverRules, type DiscoveryContext } from "../discover/discover.js";
import { foldersFromRoot } from "../discover/locations.js";
import type { ParseCacheEntries } from "../discover/parse-cache.js";
import type { FoundRuleFile, RuleSource } from "../discover/source.js";
import { inside, moreTrusted, trustOf } from "../rule/trust.js";
import type { Rule } from "../rule/rule.js";
import type { RuleWarning } from "../rule/warnings.js";
import type { ConfiguredPack } from "../packs/configured.js";
import { type PackLoad, loadPacks, type PackReport } from "../packs/load-packs.js";
import { ruleWarning } from "../rule/warnings.js";
import { managedSource } from "../packs/managed.js";
import { ALL_SOURCES } from "./sources.js";

export interface ShadowedRule {
  rule: Rule;
  /** The rule of the same name that wins. */
  by: Rule;
  /**
   * The shadowed rule forbids and is more trusted than the winner: its text is not delivered, its
   * forbids still hold.
   */
  forbidHolds?: true;
}

export interface LoadedRules {
  /** The rules in effect, in message order: global before project, then priority (high first), then name. */
  rules: Rule[];
  shadowed: ShadowedRule[];
  warnings: RuleWarning[];
  /** Every rule file found, including those skipped. */
  files: FoundRuleFile[];
  /** Every rules folder looked in (some may not exist): what to watch. */
  folders: string[];
  /** Real paths of files included through references: a change there changes a rule too. */
  references: string[];
  /** Rules folders and rule files the sources probed: true for a folder (the watcher need not stat them again). */
  probed?: ReadonlyMap<string, boolean>;
  /** The parses to keep for the next load (discover/parse-cache.ts). */
  parses?: ParseCacheEntries;
  /** Each configured pack: where it is, what it holds, why it is not delivered. */
  packs?: PackReport[];
}

export interface LoadOptions {
  /** Ids of the sources to read; all when undefined. */
  sources?: readonly string[];
  /** The `extraDirs` option (read by the `extra` source); `context.extraDirs` when undefined. */
  extraDirs?: readonly string[];
  /** The packs the project, the user and the administrator name (pack-config.ts). */
  packs?: readonly ConfiguredPack[];
}

/** The managed folder is read whatever the `sources` option says: a setting below it cannot switch it off. */
const ALWAYS_READ = new Set([managedSource.id]);

/** The sources the `sources` option turns on. */
export const sourcesRead = (options: Pick<LoadOptions, "sources">): RuleSource[] =>
  ALL_SOURCES.filter((source) => ALWAYS_READ.has(source.id) || !options.sources || options.sources.includes(source.id));

export async function loadRules(context: DiscoveryContext, options: LoadOptions = {}): Promise<LoadedRules> {
  const sources = sourcesRead(options);
  const [discovery, packs] = await Promise.all([
    discoverRules({ ...context, extraDirs: options.extraDirs ?? context.extraDirs }, sources),
    loadPacks(context, options.packs ?? []),
  ]);
  const { rules, shadowed, beside } = resolvePrecedence(
    [...discovery.rules, ...packs.rules],
    foldersFromRoot(context.directory, context.worktree),
  );
  const warnings = [
    ...discovery.warnings,
    ...packs.warnings,
    ...beside.map(({ rule, managed }) =>
      ruleWarning(rule.path, { code: "managed-beside", managed: managed.displayPath }),
    ),
  ];
  // Without packs (most projects), discovery's own collections are returned as they are: nothing is copied at start.
  const { files, folders, references, probed, parses } =
    packs.packs.length === 0 ? discovery : withPacks(discovery, packs);
  return {
    rules: inMessageOrder(rules),
    shadowed,
    warnings,
    files,
    folders,
    references,
    probed,
    parses,
    packs: packs.packs,
  };
}

/** What discovery found and what the packs hold, each collection once. */
function withPacks(discovery: Discovery, packs: PackLoad) {
  return {
    files: [...discovery.files, ...packs.files],
    folders: [...new Set([...discovery.folders, ...packs.folders])],
    references: [...new Set([...discovery.references, ...packs.references])],
    probed: new Map([...discovery.probed, ...packs.probed]),
    parses: new Map([...discovery.parses, ...packs.parses]),
  };
}

/**
 * One rule per name. Precedence: project before global; within a scope, by
 * source (the order of ALL_SOURCES, packs after every folder); within a
 * source, the nearer project level first (a package's rule before the
 * repository root's), then the order found. The first rule of a name wins and
 * the others are shadowed by it, unless one of them says `override: true`:
 * then the first such rule wins instead, and every other rule of that name is
 * shadowed by it.
 *
 * Shadowing decides whose text is delivered, never whose forbids hold: a
 * shadowed rule more trusted than the winner keeps enforcing (a repository's
 * `git.md` must not switch off the user's global `git.md`).
 *
 * Managed rules are names of their own: nothing below shadows or overrides
 * one. A rule below of a managed rule's name is delivered beside it, named
 * `name~project` or `name~user` (`beside`, which `check` and the log report).
 */
export function resolvePrecedence(
  rules: readonly Rule[],
  levels: readonly string[] = [],
): { rules: Rule[]; shadowed: ShadowedRule[]; beside: BesideManaged[] } {
  /** Index of the deepest project level holding the file: higher is nearer the directory. */
  const levelOf = (rule: Rule) => {
    if (rule.scope !== "project" || levels.length < 2) return 0;
    for (let i = levels.length - 1; i >= 0; i--) if (inside(rule.path, [levels[i] as string])) return i;
    return 0;
  };
  const ranked = rules
    .map((rule, index) => ({
      rule,
      index,
      scope: rule.scope === "project" ? 0 : 1,
      source: sourceRank(rule.source),
      level: levelOf(rule),
    }))
    .sort((a, b) => a.scope - b.scope || a.source - b.source || b.level - a.level || a.index - b.index);
  const byName = new Map<string, Rule[]>();
  for (const { rule } of ranked) {
    const key = trustOf(rule) === "managed" ? `managed\u0000${rule.name}` : rule.name;
    const same = byName.get(key);
    if (same) same.push(rule);
    else byName.set(key, [rule]);
  }
  const managed = new Map(rules.filter((rule) => trustOf(rule) === "managed").map((rule) => [rule.name, rule]));
  const taken = new Set(rules.map((rule) => rule.name));
  const winners: Rule[] = [];
  const shadowed: ShadowedRule[] = [];
  const beside: BesideManaged[] = [];
  for (const same of byName.values()) {
    const first = same.find((rule) => rule.override) ?? (same[0] as Rule);
    const above = trustOf(first) === "managed" ? undefined : managed.get(first.name);
    const winner = above ? { ...first, name: besideName(first, taken) } : first;
    if (above) beside.push({ rule: winner, managed: above });
    winners.push(winner);
    for (const rule of same) {
      if (rule === first) continue;
      const holds = rule.enforce !== undefined && moreTrusted(trustOf(rule), trustOf(winner));
      shadowed.push(holds ? { rule, by: winner, forbidHolds: true } : { rule, by: winner });
    }
  }
  return { rules: winners, shadowed, beside };
}

/** A rule delivered beside the managed rule of its name, under a name of its own. */
export interface BesideManaged {
  rule: Rule;
  managed: Rule;
}

/** `name~project` or `name~user`, numbered on in the unlikely case a rule already has that name. */
function besideName(rule: Rule, taken: Set<string>): string {
  const base = `${rule.name}~${rule.scope === "project" ? "project" : "user"}`;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

/** Every rule whose forbids hold: the rules in effect, then the shadowed ones more trusted than what shadows them. */
export const enforcingRules = (loaded: Pick<LoadedRules, "rules" | "shadowed">): Rule[] => [
  ...loaded.rules,
  ...loaded.shadowed.filter((entry) => entry.forbidHolds).map(({ rule }) => rule),
];

/** What the log and `check` say of a shadowed rule whose forbids hold. */
export const heldText = (rule: Rule, by: Rule): string =>
  `Rule ${rule.name} (${rule.displayPath}) is shadowed by ${by.displayPath}, a less trusted rule of the same name: its text is not delivered, but what it forbids still holds (a repository's rule cannot switch off the user's)`;

const SOURCE_RANKS = new Map(ALL_SOURCES.map((source, index) => [source.id, index]));

/** A source's place in ALL_SOURCES; after them all when unknown. */
function sourceRank(id: string): number {
  return SOURCE_RANKS.get(id) ?? ALL_SOURCES.length;
}

/** Managed first, then global before project, then priority (high first), then name: the same order every time. */
export function inMessageOrder(rules: readonly Rule[]): Rule[] {
  // Each rule's rank worked out once, not at each of the sort's comparisons.
  const ranked = rules.map((rule) => ({
    rule,
    rank: trustOf(rule) === "managed" ? 0 : rule.scope === "global" ? 1 : 2,
  }));
  ranked.sort(
    (a, b) =>
      a.rank - b.rank ||
      b.rule.priority - a.rule.priority ||
      (a.rule.name < b.rule.name ? -1 : a.rule.name > b.rule.name ? 1 : 0),
  );
  return ranked.map(({ rule }) => rule);
}
