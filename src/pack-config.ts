/**
 * Which packs each owner names, read from where each owner writes
 * (docs/team-packs.md): the repository's OpenCode config, the user's own, and
 * the administrator's `rulebook.json` beside the managed rules folder. Each
 * owner has its place: its lock, its Git cache, where its npm packs are found.
 */
import { type Stats, statSync } from "node:fs";
import { stat as statAsync } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { managedRulesDir, openCodeConfigDir, projectRoot } from "./discover/locations.js";
import {
  findPluginOptions,
  findPluginOptionsAsync,
  type FoundOptions,
  readConfigFile,
  readConfigFileAsync,
  userPluginOptions,
  userPluginOptionsAsync,
} from "./opencode-config.js";
import { parseOptions } from "./options.js";
import type { ConfiguredPack, PackPlace } from "./packs/configured.js";
import { userPackCache } from "./packs/git-cache.js";
import { LOCK_FILE } from "./packs/lock.js";
import { managedOwners, ownerProblem } from "./rule/trust.js";
import type { Trust } from "./rule/trust.js";
import { ruleWarning, type RuleWarning } from "./rule/warnings.js";

/** The administrator's list of managed packs, beside the managed rules folder. */
const MANAGED_PACKS_FILE = "rulebook.json";

/**
 * The folder this package is installed in: OpenCode's own plugin install folder, where an npm pack installed beside the
 * plugin is found.
 */
const PLUGIN_FOLDER = fileURLToPath(new URL("..", import.meta.url));

export interface PackIo {
  env: Record<string, string | undefined>;
  home: string;
  directory: string;
  worktree: string;
}

/** The plugin's options as the caller already read them from the config files (each is read here when absent). */
interface ReadOptions {
  /** The user's own config files' (`userPluginOptions`). */
  user?: FoundOptions;
  /** Every config file's, the last that lists the plugin (`findPluginOptions`). */
  found?: FoundOptions;
}

interface PackConfig {
  packs: ConfiguredPack[];
  warnings: RuleWarning[];
}

/** Where an owner's packs are pinned and kept; `configFile`: the file naming them (a folder pack is relative to it). */
export function ownerPlace(owner: Trust, io: PackIo, configFile?: string): PackPlace {
  if (owner === "managed") {
    const folder = dirname(managedRulesDir(io.env));
    return {
      owner,
      configFile: configFile ?? join(folder, MANAGED_PACKS_FILE),
      lockFile: join(folder, LOCK_FILE),
      gitCache: join(folder, "rulebook-packs"),
      npmFrom: [folder],
    };
  }
  const userCache = userPackCache(io.env, io.home);
  if (owner === "user") {
    const folder = openCodeConfigDir(io.env, io.home);
    return {
      owner,
      configFile: configFile ?? join(folder, "opencode.json"),
      lockFile: join(folder, LOCK_FILE),
      gitCache: userCache,
      npmFrom: [folder, PLUGIN_FOLDER],
    };
  }
  const root = projectRoot(io.directory, io.worktree);
  return {
    owner,
    configFile: configFile ?? join(root, "opencode.json"),
    lockFile: join(root, ".opencode", LOCK_FILE),
    gitCache: userCache,
    npmFrom: [io.directory, PLUGIN_FOLDER],
  };
}

/**
 * Every pack configured: the administrator's, the user's, the project's
 * (their precedence is their rules' tier: formats/load.ts). `handed`: the
 * packs in the options the host handed the plugin; one no config file this
 * reads names (options given another way) counts as the project's, the least
 * trusted owner, relative to the project root.
 */
export function configuredPacks(io: PackIo, handed: readonly string[] = [], read: ReadOptions = {}): PackConfig {
  const warnings: RuleWarning[] = [];
  const managed = managedPacks(io, warnings);
  const user = read.user ?? userPluginOptions(io.env, io.home);
  const found = read.found ?? findPluginOptions(io.env, io.home, io.directory, io.worktree);
  return { packs: packsNamed(io, handed, managed, user, found), warnings };
}

/** `configuredPacks` without a synchronous call: the plugin's start (a hung mount must not freeze OpenCode). */
export async function configuredPacksAsync(
  io: PackIo,
  handed: readonly string[] = [],
  read: ReadOptions = {},
): Promise<PackConfig> {
  const warnings: RuleWarning[] = [];
  const [managed, user, found] = await Promise.all([
    managedPacksAsync(io, warnings),
    read.user ?? userPluginOptionsAsync(io.env, io.home),
    read.found ?? findPluginOptionsAsync(io.env, io.home, io.directory, io.worktree),
  ]);
  return { packs: packsNamed(io, handed, managed, user, found), warnings };
}

function packsNamed(
  io: PackIo,
  handed: readonly string[],
  managed: ConfiguredPack[],
  user: FoundOptions,
  found: FoundOptions,
): ConfiguredPack[] {
  // The options OpenCode hands the plugin come from the last config that lists it: the project's packs only when that
  // is not the user's own.
  const project = found.path !== undefined && found.path !== user.path ? found : undefined;
  const named = (owner: Trust, raw: unknown, file: string | undefined) =>
    file === undefined
      ? []
      : parseOptions(raw, io.env).options.packs.map((spec) => ({ spec, place: ownerPlace(owner, io, file) }));
  // Most trusted first: a spec named twice is read once, as the more trusted owner's (packs/load-packs.ts); each
  // owner's command sees its own.
  return [
    ...managed,
    ...named("user", user.raw, user.path),
    ...named("repository", project?.raw, project?.path),
    ...handed.map((spec) => ({ spec, place: ownerPlace("repository", io) })),
  ];
}

/** The managed packs `rulebook.json` names, when the administrator's file may be trusted. */
function managedPacks(io: PackIo, warnings: RuleWarning[]): ConfiguredPack[] {
  const place = ownerPlace("managed", io);
  let stat;
  try {
    stat = statSync(place.configFile);
  } catch {
    return [];
  }
  if (!trusted(place, stat, () => statSync(dirname(place.configFile)), warnings)) return [];
  return managedIn(place, readConfigFile(place.configFile), io, warnings);
}

async function managedPacksAsync(io: PackIo, warnings: RuleWarning[]): Promise<ConfiguredPack[]> {
  const place = ownerPlace("managed", io);
  const [stat, folder] = await Promise.all([
    statAsync(place.configFile).catch(() => undefined),
    statAsync(dirname(place.configFile)).catch(() => undefined),
  ]);
  if (!stat || !folder || !trusted(place, stat, () => folder, warnings)) return [];
  return managedIn(place, await readConfigFileAsync(place.configFile), io, warnings);
}

/** Whether the managed file is a regular file that it and its folder's owners let be trusted; why not, as a warning. */
function trusted(place: PackPlace, stat: Stats, folderStat: () => Stats, warnings: RuleWarning[]): boolean {
  // A FIFO would hold the read for ever.
  if (!stat.isFile()) {
    warnings.push(ruleWarning(place.configFile, { code: "not-regular-file" }));
    return false;
  }
  const owners = managedOwners(process.platform, process.getuid?.());
  for (const [path, facts] of [
    [dirname(place.configFile), folderStat()],
    [place.configFile, stat],
  ] as const) {
    const problem = ownerProblem(path, facts, owners);
    if (problem) {
      warnings.push(ruleWarning(path, { code: "managed-not-trusted", reason: problem }));
      return false;
    }
  }
  return true;
}

function managedIn(
  place: PackPlace,
  read: ReturnType<typeof readConfigFile>,
  io: PackIo,
  warnings: RuleWarning[],
): ConfiguredPack[] {
  if (!read) return [];
  if ("warning" in read) {
    warnings.push(read.warning);
    return [];
  }
  const { options, errors } = parseOptions({ packs: (read.config as { packs?: unknown } | null)?.packs ?? [] }, io.env);
  for (const problem of errors) warnings.push(ruleWarning(place.configFile, { code: "plugin-options", problem }));
  return options.packs.map((spec) => ({ spec, place }));
}
