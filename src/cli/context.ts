/**
 * What every command needs: where the project is (as OpenCode would see it),
 * the plugin's options from opencode.json, and the discovery context the
 * engine loads rules with. Reading happens here; commands stay pure.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseOptions, type RulebookOptions } from "../options.js";
import type { RuleWarning } from "../rule/rule.js";
import type { DiscoveryContext } from "../sources/discover.js";
import { nodeRuleFs, type RuleFs } from "../sources/fs.js";
import { ALL_SOURCES, loadRules, type LoadedRules } from "../sources/load.js";
import { displayPath, foldersFromRoot, projectRoot } from "../sources/locations.js";

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
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const result = (stdout: string, stderr = "", exitCode = 0): CommandResult => ({ stdout, stderr, exitCode });

export function projectContext(io: Pick<CliIo, "env" | "home" | "cwd">, cwdOption?: string, fs: RuleFs = nodeRuleFs): ProjectContext {
  const directory = resolve(io.cwd, cwdOption ?? ".");
  if (!isDirectory(directory)) throw new UsageError(`--cwd ${cwdOption ?? directory}: no such folder`);
  const worktree = gitRoot(directory) ?? directory;
  const root = projectRoot(directory, worktree);
  const found = findPluginOptions(io.env, io.home, directory, worktree);
  const parsed = parseOptions(found.raw, io.env, ALL_SOURCES.map((source) => source.id));
  const configWarnings = [...found.warnings];
  for (const error of parsed.errors) configWarnings.push({ path: found.path ?? join(root, "opencode.json"), message: `plugin options: ${error}` });
  const { options } = parsed;
  const discovery: DiscoveryContext = { env: io.env, home: io.home, directory, worktree, fs, maxRuleBytes: options.maxRuleBytes, extraDirs: options.extraDirs };
  return { env: io.env, home: io.home, directory, worktree, projectRoot: root, options, configPath: found.path, configWarnings, discovery };
}

/** The rules as the plugin would load them, with the same sources. */
export function loadProjectRules(project: ProjectContext): Promise<LoadedRules> {
  return loadRules(project.discovery, { sources: project.options.sources });
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
export function gitRoot(directory: string): string | undefined {
  let current = directory;
  for (;;) {
    if (existsSync(join(current, ".git"))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

// ---------------------------------------------------------------------------
// opencode.json

interface FoundOptions {
  raw: unknown;
  path?: string;
  warnings: RuleWarning[];
}

/**
 * OpenCode's config files, least specific first: the global one, `OPENCODE_CONFIG`,
 * then `opencode.json(c)` (and `.opencode/opencode.json(c)`) from the worktree down
 * to the directory. The last one that lists the plugin gives its options.
 */
export function configFiles(env: Record<string, string | undefined>, home: string, directory: string, worktree: string): string[] {
  const globalDir = env.OPENCODE_CONFIG_DIR ?? join(env.XDG_CONFIG_HOME || join(home, ".config"), "opencode");
  const files = [join(globalDir, "opencode.jsonc"), join(globalDir, "opencode.json"), join(globalDir, "config.json")];
  if (env.OPENCODE_CONFIG) files.push(resolve(directory, env.OPENCODE_CONFIG));
  for (const folder of foldersFromRoot(directory, worktree)) {
    files.push(join(folder, "opencode.jsonc"), join(folder, "opencode.json"), join(folder, ".opencode", "opencode.jsonc"), join(folder, ".opencode", "opencode.json"));
  }
  return files;
}

export function findPluginOptions(env: Record<string, string | undefined>, home: string, directory: string, worktree: string): FoundOptions {
  const found: FoundOptions = { raw: undefined, warnings: [] };
  for (const file of configFiles(env, home, directory, worktree)) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    let config: unknown;
    try {
      config = JSON.parse(stripJsonComments(text));
    } catch (error) {
      found.warnings.push({ path: file, message: `cannot be read as JSON (${(error as Error).message}); its plugin options were not used` });
      continue;
    }
    const plugins = (config as { plugin?: unknown } | null)?.plugin;
    if (!Array.isArray(plugins)) continue;
    for (const entry of plugins) {
      const [spec, options] = Array.isArray(entry) ? [entry[0], entry[1]] : [entry, undefined];
      if (typeof spec === "string" && isRulebookSpec(spec)) {
        found.raw = options;
        found.path = file;
      }
    }
  }
  return found;
}

/** `opencode-rulebook`, `opencode-rulebook@1.2.3`, or a path / file URL to the package or its `dist/index.js`. */
export function isRulebookSpec(spec: string): boolean {
  if (/^opencode-rulebook(@[^/]+)?$/.test(spec)) return true;
  let path = spec;
  if (spec.startsWith("file://")) {
    try {
      path = fileURLToPath(spec);
    } catch {
      return false;
    }
  }
  const normalised = path.replace(/\\/g, "/").replace(/\/+$/, "");
  return /(^|\/)opencode-rulebook$/.test(normalised) || /(^|\/)dist\/index\.js$/.test(normalised);
}

/** JSONC → JSON: drops `//` and `/* *\/` comments and trailing commas, leaving strings alone. */
export function stripJsonComments(text: string): string {
  let out = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    const next = text[index + 1];
    if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out += text.slice(index, end + 1);
      index = end;
    } else if (char === "/" && next === "/") {
      while (index < text.length && text[index] !== "\n") index++;
      out += "\n";
    } else if (char === "/" && next === "*") {
      const end = text.indexOf("*/", index + 2);
      index = end < 0 ? text.length : end + 1;
    } else if (char === "," && /^\s*[}\]]/.test(text.slice(index + 1, index + 200))) {
      // A trailing comma: dropped.
    } else out += char;
  }
  return out;
}
