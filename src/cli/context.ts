/**
 * What every command needs: where the project is (as OpenCode would see it),
 * the plugin's options from opencode.json, and the discovery context the
 * engine loads rules with. Reading happens here; commands stay pure.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { findPluginOptions, findTuiPluginOptions, userPluginOptions } from "../opencode-config.js";
import { parseOptions, type RulebookOptions } from "../options.js";
import { ruleWarning, type RuleWarning } from "../rule/warnings.js";
import type { DiscoveryContext } from "../discover/discover.js";
import { nodeRuleFs, type RuleFs } from "../discover/fs.js";
import { loadRules, type LoadedRules, sourcesRead } from "../formats/load.js";
import { sourceLookUps } from "../formats/looked-up.js";
import { ALL_SOURCES } from "../formats/sources.js";
import { configuredPacks } from "../pack-config.js";
import type { ConfiguredPack } from "../packs/configured.js";
import { displayPath, projectRoot } from "../discover/locations.js";

/** The process around a command: passed in so tests and the real binary differ only here. */
export interface CliIo {
  env: Record<string, string | undefined>;
  home: string;
  /** The process's working folder, for a relative `--cwd`. */
  cwd: string;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Asks a yes/no question on the terminal. */
  confirm(question: string): Promise<boolean>;
}

export interface ProjectContext {
  env: Record<string, string | undefined>;
  home: string;
  /** OpenCode's `directory`: `--cwd`, else the working folder. */
  directory: string;
  /** OpenCode's `worktree`: the nearest folder up with `.git`, else `directory`. */
  worktree: string;
  /** The top folder of the project's rule folders (the worktree when `directory` is inside it). */
  projectRoot: string;
  options: RulebookOptions;
  /** The opencode.json file the options were read from, if any. */
  configPath?: string;
  /** Problems with that file or the options in it, as rule warnings on the config file. */
  configWarnings: RuleWarning[];
  discovery: DiscoveryContext;
  /** The packs the administrator, the user and the project name. */
  packs: readonly ConfiguredPack[];
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const result = (stdout: string, stderr = "", exitCode = 0): CommandResult => ({ stdout, stderr, exitCode });

export function projectContext(
  io: Pick<CliIo, "env" | "home" | "cwd">,
  cwdOption?: string,
  fs: RuleFs = nodeRuleFs,
): ProjectContext {
  const directory = resolve(io.cwd, cwdOption ?? ".");
  if (!isDirectory(directory)) throw new UsageError(`--cwd ${cwdOption ?? directory}: no such folder`);
  const worktree = gitRoot(directory) ?? directory;
  const root = projectRoot(directory, worktree);
  const found = findPluginOptions(io.env, io.home, directory, worktree);
  const parsed = parseOptions(
    found.raw,
    io.env,
    ALL_SOURCES.map((source) => source.id),
  );
  const configWarnings = [...found.warnings];
  for (const problem of parsed.errors)
    configWarnings.push(ruleWarning(found.path ?? join(root, "opencode.json"), { code: "plugin-options", problem }));
  // OpenCode 1 hands the Rules panel the options of its `tui.json` entry; it reads none, so any there are a mistake.
  const tui = findTuiPluginOptions(io.env, io.home, directory, worktree);
  const tuiKeys = optionNames(tui.raw);
  if (tui.path && tuiKeys.length > 0)
    configWarnings.push(ruleWarning(tui.path, { code: "tui-options", keys: tuiKeys }));
  const { options } = parsed;
  const user = userPluginOptions(io.env, io.home);
  const userExtraDirs = parseOptions(user.raw, io.env).options.extraDirs;
  const discovery: DiscoveryContext = {
    env: io.env,
    home: io.home,
    directory,
    worktree,
    fs,
    maxRuleBytes: options.maxRuleBytes,
    extraDirs: options.extraDirs,
    userExtraDirs,
  };
  const packConfig = configuredPacks({ env: io.env, home: io.home, directory, worktree }, [], { user, found });
  configWarnings.push(...packConfig.warnings);
  return {
    env: io.env,
    home: io.home,
    directory,
    worktree,
    projectRoot: root,
    options,
    configPath: found.path,
    configWarnings,
    discovery,
    packs: packConfig.packs,
  };
}

/** The names of the options given (a value that is not a mapping, as JSON). */
function optionNames(raw: unknown): string[] {
  if (raw === undefined) return [];
  return raw !== null && typeof raw === "object" && !Array.isArray(raw) ? Object.keys(raw) : [JSON.stringify(raw)];
}

/**
 * The rules as the plugin would load them, with the same sources; `touched`: files (relative to the directory, or
 * absolute) a session would touch, whose folders bring the rule files found by looking up from them (a sub-folder's
 * `GEMINI.md`), as they would in a session.
 */
export async function loadProjectRules(project: ProjectContext, touched: readonly string[] = []): Promise<LoadedRules> {
  const options = { sources: project.options.sources, packs: project.packs };
  // A command looks up from every path it is given: its own list is bounded (check.ts, PROJECT_FILE_LIMIT).
  const lookUps = sourceLookUps(project.discovery, sourcesRead(options), { maxPaths: Number.POSITIVE_INFINITY });
  await lookUps.from(touched.map((path) => resolve(project.directory, path)));
  return loadRules({ ...project.discovery, lookedUp: lookUps.folders }, options);
}

/** A path for people: project-relative inside the project, `~/…` under home. */
export function shownPath(project: ProjectContext, path: string): string {
  return displayPath(path, project.projectRoot, project.home);
}

/** Wrong arguments: exit status 2. */
export class UsageError extends Error {}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest folder from `directory` up that holds `.git` (a folder, or a file in a worktree or submodule). */
function gitRoot(directory: string): string | undefined {
  let current = directory;
  for (;;) {
    if (existsSync(join(current, ".git"))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
