/**
 * OpenCode's config files (\`opencode.json(c)\`: JSON with comments and
 * trailing commas, read with Microsoft's jsonc-parser): where they are, and
 * the options they give this plugin. The command line reads the options as
 * the plugin gets them; the plugin reads the user's own files to know which
 * \`extraDirs\` the user named (a repository's config cannot widen what is read).
 */
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorCode, nodeRuleFs, readRegularFile } from "./discover/fs.js";
import { ruleWarning, type RuleWarning } from "./rule/warnings.js";
import { foldersFromRoot, openCodeConfigDir } from "./discover/locations.js";
import { isRulebookSpec } from "./plugin-spec.js";

export interface FoundOptions {
  raw: unknown;
  path?: string;
  warnings: RuleWarning[];
}

/**
 * OpenCode's config files, least specific first: the global one, `OPENCODE_CONFIG`,
 * then `opencode.json(c)` (and `.opencode/opencode.json(c)`) from the worktree down
 * to the directory. The last one that lists the plugin gives its options.
 */
export function configFiles(
  env: Record<string, string | undefined>,
  home: string,
  directory: string,
  worktree: string,
): string[] {
  const files = userConfigFiles(env, home, directory);
  for (const folder of foldersFromRoot(directory, worktree)) {
    files.push(
      join(folder, "opencode.jsonc"),
      join(folder, "opencode.json"),
      join(folder, ".opencode", "opencode.jsonc"),
      join(folder, ".opencode", "opencode.json"),
    );
  }
  return files;
}

/** The user's own config files: the global ones and `$OPENCODE_CONFIG`, which a repository cannot write. */
function userConfigFiles(env: Record<string, string | undefined>, home: string, directory: string): string[] {
  const globalDir = openCodeConfigDir(env, home);
  const files = [join(globalDir, "opencode.jsonc"), join(globalDir, "opencode.json"), join(globalDir, "config.json")];
  if (env.OPENCODE_CONFIG) files.push(resolve(directory, env.OPENCODE_CONFIG));
  return files;
}

/**
 * OpenCode 1's terminal UI config files (`tui.json(c)`, which list the Rules
 * panel), least specific first: the global one, `$OPENCODE_TUI_CONFIG`, then
 * those from the worktree down to the directory (1.18.33 `TuiConfig.loadState`).
 */
export function tuiConfigFiles(
  env: Record<string, string | undefined>,
  home: string,
  directory: string,
  worktree: string,
): string[] {
  const globalDir = openCodeConfigDir(env, home);
  const files = [join(globalDir, "tui.json"), join(globalDir, "tui.jsonc")];
  if (env.OPENCODE_TUI_CONFIG) files.push(resolve(directory, env.OPENCODE_TUI_CONFIG));
  for (const folder of foldersFromRoot(directory, worktree)) {
    files.push(
      join(folder, "tui.json"),
      join(folder, "tui.jsonc"),
      join(folder, ".opencode", "tui.json"),
      join(folder, ".opencode", "tui.jsonc"),
    );
  }
  return files;
}

/** Where config files are read from: relative specs in them are resolved from OpenCode's working folder and home. */
interface ConfigReading {
  home: string;
  directory: string;
}

export function findPluginOptions(
  env: Record<string, string | undefined>,
  home: string,
  directory: string,
  worktree: string,
): FoundOptions {
  return pluginOptionsIn(configFiles(env, home, directory, worktree), { home, directory });
}

/** `findPluginOptions` without a synchronous call: the plugin's start (a hung mount must not freeze OpenCode). */
export function findPluginOptionsAsync(
  env: Record<string, string | undefined>,
  home: string,
  directory: string,
  worktree: string,
): Promise<FoundOptions> {
  return pluginOptionsReadAsync(configFiles(env, home, directory, worktree), { home, directory });
}

/** The options given to the plugin's entry in `tui.json`: the Rules panel takes none, so they are never read. */
export function findTuiPluginOptions(
  env: Record<string, string | undefined>,
  home: string,
  directory: string,
  worktree: string,
): FoundOptions {
  return pluginOptionsIn(tuiConfigFiles(env, home, directory, worktree), { home, directory });
}

/** The plugin's options as the user's own config files give them (what a repository cannot change). */
export function userPluginOptions(env: Record<string, string | undefined>, home: string): FoundOptions {
  return pluginOptionsIn(userConfigFiles(env, home, home), { home, directory: home });
}

/** `userPluginOptions` without a synchronous call (the plugin's start). */
export function userPluginOptionsAsync(env: Record<string, string | undefined>, home: string): Promise<FoundOptions> {
  return pluginOptionsReadAsync(userConfigFiles(env, home, home), { home, directory: home });
}

/** A config file as read: its value, or why it is not JSONC; undefined when there is none (or it cannot be read). */
type ReadConfig = { config: unknown } | { warning: RuleWarning };

/** One OpenCode config file, read as JSONC the way OpenCode reads it. */
export function readConfigFile(file: string): ReadConfig | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return configOf(file, text);
}

/**
 * `readConfigFile` without a synchronous call (the plugin's start): only a regular file (a FIFO would hold the read for
 * ever) of at most 16 MiB, larger than any real config.
 */
export const readConfigFileAsync = (file: string): Promise<ReadConfig | undefined> =>
  readRegularFile(nodeRuleFs, file, 16 * 1024 * 1024).then(
    (bytes) => configOf(file, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")),
    () => undefined,
  );

function configOf(file: string, text: string): ReadConfig {
  const errors: ParseError[] = [];
  const config: unknown = parse(text, errors, { allowTrailingComma: true });
  const error = errors[0];
  if (!error) return { config };
  // `ValueExpected` → "value expected"; the line is counted from the error's offset.
  const reason = printParseErrorCode(error.error)
    .replace(/(?<=[a-z])(?=[A-Z])/g, " ")
    .toLowerCase();
  return { warning: ruleWarning(file, { code: "config-invalid", reason, line: lineAt(text, error.offset) }) };
}

function pluginOptionsIn(files: readonly string[], reading: ConfigReading): FoundOptions {
  return pluginOptionsOf(
    files.map((file) => [file, readConfigFile(file)] as const),
    reading,
    readPackageJson,
  );
}

/** Read without a synchronous call: a first pass names the package.json files the specs may need, the second has them. */
async function pluginOptionsReadAsync(files: readonly string[], reading: ConfigReading): Promise<FoundOptions> {
  const reads = await Promise.all(files.map(async (file) => [file, await readConfigFileAsync(file)] as const));
  const asked = new Set<string>();
  pluginOptionsOf(reads, reading, (folder) => void asked.add(folder));
  const packages = new Map(
    await Promise.all([...asked].map(async (folder) => [folder, await readPackageJsonAsync(folder)] as const)),
  );
  return pluginOptionsOf(reads, reading, (folder) => packages.get(folder));
}

function pluginOptionsOf(
  reads: ReadonlyArray<readonly [string, ReadConfig | undefined]>,
  reading: ConfigReading,
  readPackage: (folder: string) => unknown,
): FoundOptions {
  const found: FoundOptions = { raw: undefined, warnings: [] };
  for (const [file, read] of reads) {
    if (!read) continue;
    if ("warning" in read) {
      found.warnings.push(read.warning);
      continue;
    }
    // OpenCode 1: `plugin: [spec | [spec, options]]`; OpenCode 2: `plugins: [spec | { package, options }]`.
    const { plugin, plugins } = (read.config ?? {}) as { plugin?: unknown; plugins?: unknown };
    for (const entry of [...(Array.isArray(plugin) ? plugin : []), ...(Array.isArray(plugins) ? plugins : [])]) {
      const [spec, options] = pluginEntry(entry);
      if (typeof spec === "string" && isRulebookSpec(spec, { ...reading, configFile: file }, readPackage)) {
        found.raw = options;
        found.path = file;
      }
    }
  }
  return found;
}

function pluginEntry(entry: unknown): [unknown, unknown] {
  if (Array.isArray(entry)) return [entry[0], entry[1]];
  if (entry && typeof entry === "object")
    return [(entry as { package?: unknown }).package, (entry as { options?: unknown }).options];
  return [entry, undefined];
}

/** How much of a package.json is read: a package's name is near its top, and a larger file is not this package's. */
const PACKAGE_JSON_BYTES = 64 * 1024;

/** The package.json in `folder`, parsed; undefined when there is none, null when it cannot be read as JSON. */
export function readPackageJson(folder: string): unknown {
  let fd: number;
  try {
    // Not blocking: a FIFO named package.json must not hang the command.
    fd = openSync(join(folder, "package.json"), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.alloc(PACKAGE_JSON_BYTES);
    return JSON.parse(buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0)));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * `readPackageJson` without a synchronous call. As there, a FIFO, a larger file or one that is not JSON reads as null
 * (`readRegularFile`'s own reasons hold spaces, a system error's code none), a file that cannot be opened as undefined.
 */
const readPackageJsonAsync = (folder: string): Promise<unknown> =>
  readRegularFile(nodeRuleFs, join(folder, "package.json"), PACKAGE_JSON_BYTES)
    .then(
      (bytes) => JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")),
      (error) => (errorCode(error)?.includes(" ") ? null : undefined),
    )
    .catch(() => null);

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1)) line++;
  return line;
}
