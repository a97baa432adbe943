/**
 * Starts a real `opencode serve` (the pinned opencode-ai binary) against the
 * fake model, fully isolated and offline, for end-to-end tests.
 *
 * Per instance: a temp project (fresh git repo, one commit), a temp HOME with
 * XDG_* dirs, an `opencode.json` in the project wiring provider `fake`
 * (`@ai-sdk/openai-compatible`, bundled inside the binary, so nothing is
 * downloaded) to the fake model, plus the plugin list. OpenCode npm-installs
 * `@opencode-ai/plugin` into every config dir (global + project .opencode)
 * unless that dir has `node_modules/` and a `package-lock.json` whose root
 * lists it, so we pre-create both. The child gets a whitelisted env (no API
 * keys / OPENCODE_* leaking in) and runs in its own process group; stop() and
 * a process-exit hook kill it so a failing test never leaves a server behind
 * (server.ts).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk";
import type { FakeModelOptions } from "./fake-model.js";
import { type FakeModel, startFakeModel } from "./fake-model-server.js";
import { probePluginSource, readProbe, type ProbeRecord } from "./probe.js";
import { type SpawnedServer, spawnServer } from "./server.js";

/** Repository root (…/test/e2e/harness → …). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The built plugin entry, for `pluginPath` (build with `npm run build`). */
export const DIST_PLUGIN = path.join(REPO_ROOT, "dist", "index.js");

/** A plugin entry for the `plugin` config array: a spec, or [spec, options]. */
export type PluginSpec = string | [string, Record<string, unknown>];

export interface StartOptions {
  /** Absolute path (or file:// URL) of a plugin module; added to `plugin` (with `pluginOptions` if given). */
  pluginPath?: string;
  pluginOptions?: Record<string, unknown>;
  /** Extra `plugin` entries (absolute paths are turned into file:// URLs). */
  plugins?: PluginSpec[];
  /** Files to create in the project before the initial commit: relative path -> content. */
  projectFiles?: Record<string, string>;
  /** Files under $XDG_CONFIG_HOME/opencode/rules: relative path -> content. */
  globalRules?: Record<string, string>;
  /** Files under <project>/.opencode/rules: relative path -> content (committed). */
  projectRules?: Record<string, string>;
  /** Deep-merged over the generated opencode.json (project). */
  config?: Record<string, unknown>;
  /** Written to $XDG_CONFIG_HOME/opencode/opencode.json when given. */
  globalConfig?: Record<string, unknown>;
  /** Extra env for the opencode process (wins over defaults). */
  env?: Record<string, string | undefined>;
  /** Model limits for fake/fake-model. Default { context: 100000, output: 4000 }. */
  limit?: { context: number; output: number; input?: number };
  /** Reuse an existing fake model instead of starting one (it is then not closed by stop()). */
  fakeModel?: FakeModel;
  fakeModelOptions?: FakeModelOptions;
  /** Pass --print-logs --log-level (default: WARN, logs go to logs()). */
  logLevel?: "DEBUG" | "INFO" | "WARN" | "ERROR";
  /** Startup timeout, ms (default 30000). */
  startTimeoutMs?: number;
  /** Keep the temp folder after stop() (also: env E2E_KEEP_TMP=1). */
  keepTmp?: boolean;
  /** Install the probe plugin as <project>/.opencode/plugins/e2e-probe.js (see probe.ts); read it with probe(). */
  probe?: boolean;
  /**
   * Called once the files above are written, before the initial commit and
   * the server start: for what plain files cannot express (symlinks, files
   * outside the project in the temp root).
   */
  prepare?: (dirs: PreparedDirs) => void;
}

/** The folders of an instance, as given to `prepare` (all exist). */
export interface PreparedDirs {
  /** Temp root holding project/ and home/ (removed by stop()). */
  rootDir: string;
  projectDir: string;
  homeDir: string;
  /** <project>/.opencode/rules */
  projectRulesDir: string;
  /** $XDG_CONFIG_HOME/opencode */
  globalConfigDir: string;
}

export interface OpencodeInstance {
  /** Server base URL, e.g. http://127.0.0.1:4096 */
  url: string;
  /** SDK client bound to the project directory. */
  client: OpencodeClient;
  /** Temp root holding project/ and home/. */
  rootDir: string;
  projectDir: string;
  homeDir: string;
  /** $XDG_CONFIG_HOME/opencode */
  globalConfigDir: string;
  /** $XDG_CONFIG_HOME/opencode/rules */
  globalRulesDir: string;
  /** <project>/.opencode/rules */
  projectRulesDir: string;
  /** $XDG_DATA_HOME/opencode (db, logs, storage) */
  dataDir: string;
  fakeModel: FakeModel;
  /** Env the server runs with. */
  env: Record<string, string>;
  /** pid of the watchdog shell = process group id of the server. */
  pid: number;
  /** Collected stdout+stderr of the server so far. */
  logs(): string;
  /** Collected stdout alone. */
  stdout(): string;
  /** Records of the probe plugin (only with `probe: true`). */
  probe(): ProbeRecord[];
  /** Path of the probe log (<root>/probe.jsonl). */
  probeLog: string;
  /** Write a file in the project (relative path), creating folders. Not committed. */
  writeProjectFile(rel: string, content: string): string;
  /** Kill the server (process group), wait for exit, remove temp folders. Idempotent. */
  stop(): Promise<void>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep merge: objects merge recursively, everything else (arrays included) is replaced. */
export function deepMerge<T extends Record<string, unknown>>(base: T, over: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k] as Record<string, unknown>, v) : v;
  }
  return out as T;
}

function writeFiles(dir: string, files: Record<string, string> | undefined): void {
  for (const [rel, content] of Object.entries(files ?? {})) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

function toSpec(p: string): string {
  return path.isAbsolute(p) ? pathToFileURL(p).href : p;
}

/**
 * Make a config dir look "already installed" so OpenCode skips its npm install
 * of @opencode-ai/plugin (Npm.install: skip when node_modules/ exists and the
 * lockfile root lists every wanted dependency). The real package is symlinked
 * in so plugins placed in that dir can still import it.
 */
export function prepareConfigDir(dir: string): void {
  fs.mkdirSync(path.join(dir, "node_modules", "@opencode-ai"), { recursive: true });
  const lock = {
    name: "opencode-config",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } },
  };
  fs.writeFileSync(path.join(dir, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
  const real = path.join(REPO_ROOT, "node_modules", "@opencode-ai", "plugin");
  const link = path.join(dir, "node_modules", "@opencode-ai", "plugin");
  if (fs.existsSync(real) && !fs.existsSync(link)) fs.symlinkSync(real, link, "dir");
}

function git(cwd: string, args: string[]): void {
  const r = spawnSync(
    "git",
    ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "-c", "commit.gpgsign=false", ...args],
    {
      cwd,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
    },
  );
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr}`);
}

/** Env passed through from the test process; everything else is dropped. */
const PASS_ENV = ["PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM"];

/** The XDG folders of an instance's home. */
function xdgFolders(homeDir: string) {
  return {
    XDG_CONFIG_HOME: path.join(homeDir, ".config"),
    XDG_DATA_HOME: path.join(homeDir, ".local", "share"),
    XDG_STATE_HOME: path.join(homeDir, ".local", "state"),
    XDG_CACHE_HOME: path.join(homeDir, ".cache"),
  };
}

/** The environment an instance's server runs in, for a command run as its user before it starts. */
export function hostEnvironment(homeDir: string): Record<string, string> {
  return { HOME: homeDir, ...xdgFolders(homeDir) };
}

export async function startOpencode(opts: StartOptions = {}): Promise<OpencodeInstance> {
  const ownModel = !opts.fakeModel;
  const fakeModel = opts.fakeModel ?? (await startFakeModel(opts.fakeModelOptions));

  const rootDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rulebook-e2e-")));
  const projectDir = path.join(rootDir, "project");
  const homeDir = path.join(rootDir, "home");
  const xdg = xdgFolders(homeDir);
  for (const d of Object.values(xdg)) fs.mkdirSync(d, { recursive: true });
  const globalConfigDir = path.join(xdg.XDG_CONFIG_HOME, "opencode");
  const globalRulesDir = path.join(globalConfigDir, "rules");
  const projectConfigDir = path.join(projectDir, ".opencode");
  const projectRulesDir = path.join(projectConfigDir, "rules");
  fs.mkdirSync(globalConfigDir, { recursive: true });
  fs.mkdirSync(projectConfigDir, { recursive: true });
  prepareConfigDir(globalConfigDir);
  prepareConfigDir(projectConfigDir);
  // What OpenCode itself would write into a config dir (Config.ensureGitignore); keeps git status clean.
  fs.writeFileSync(
    path.join(projectConfigDir, ".gitignore"),
    ["node_modules", "package.json", "package-lock.json", "bun.lock", ".gitignore"].join("\n"),
  );

  const plugins: PluginSpec[] = [];
  if (opts.pluginPath) {
    const spec = toSpec(opts.pluginPath);
    plugins.push(opts.pluginOptions ? [spec, opts.pluginOptions] : spec);
  }
  for (const p of opts.plugins ?? []) plugins.push(typeof p === "string" ? toSpec(p) : [toSpec(p[0]), p[1]]);

  let config: Record<string, unknown> = {
    $schema: "https://opencode.ai/config.json",
    model: "fake/fake-model",
    small_model: "fake/fake-model",
    enabled_providers: ["fake"],
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: fakeModel.url, apiKey: "fake-key" },
        models: {
          "fake-model": {
            name: "Fake Model",
            tool_call: true,
            attachment: false,
            reasoning: false,
            temperature: true,
            limit: opts.limit ?? { context: 100000, output: 4000 },
            cost: { input: 0, output: 0 },
          },
        },
      },
    },
    plugin: plugins,
    autoupdate: false,
    share: "disabled",
    lsp: false,
    formatter: false,
  };
  if (opts.config) config = deepMerge(config, opts.config);

  fs.mkdirSync(projectDir, { recursive: true });
  const probeLog = path.join(rootDir, "probe.jsonl");
  if (opts.probe) writeFiles(projectConfigDir, { "plugins/e2e-probe.js": probePluginSource(probeLog) });
  writeFiles(projectDir, opts.projectFiles);
  writeFiles(projectRulesDir, opts.projectRules);
  writeFiles(globalRulesDir, opts.globalRules);
  fs.writeFileSync(path.join(projectDir, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
  if (opts.globalConfig)
    fs.writeFileSync(path.join(globalConfigDir, "opencode.json"), `${JSON.stringify(opts.globalConfig, null, 2)}\n`);
  if (opts.prepare) {
    fs.mkdirSync(projectRulesDir, { recursive: true });
    try {
      opts.prepare({ rootDir, projectDir, homeDir, projectRulesDir, globalConfigDir });
    } catch (e) {
      if (ownModel) await fakeModel.close();
      fs.rmSync(rootDir, { recursive: true, force: true, maxRetries: 3 });
      throw e;
    }
  }
  git(projectDir, ["init", "-q", "-b", "main"]);
  git(projectDir, ["add", "-A"]);
  git(projectDir, ["commit", "-q", "--allow-empty", "-m", "initial"]);

  const env: Record<string, string> = {};
  for (const k of PASS_ENV) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  Object.assign(env, {
    HOME: homeDir,
    ...xdg,
    SHELL: fs.existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_EMBEDDED_WEB_UI: "1",
    OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER: "1",
    // Point models.dev at something that fails instantly instead of the internet.
    OPENCODE_MODELS_URL: "http://127.0.0.1:9",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "e2e",
    GIT_AUTHOR_EMAIL: "e2e@example.invalid",
    GIT_COMMITTER_NAME: "e2e",
    GIT_COMMITTER_EMAIL: "e2e@example.invalid",
    NO_COLOR: "1",
  });
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  const keepTmp = opts.keepTmp || process.env.E2E_KEEP_TMP === "1";
  const cleanUp = async () => {
    if (ownModel) await fakeModel.close();
    if (!keepTmp) fs.rmSync(rootDir, { recursive: true, force: true, maxRetries: 3 });
  };
  let server: SpawnedServer;
  try {
    server = await spawnServer({
      cwd: projectDir,
      env,
      watchdogRoot: keepTmp ? "" : rootDir,
      logLevel: opts.logLevel,
      timeoutMs: opts.startTimeoutMs ?? 30_000,
    });
  } catch (e) {
    await cleanUp();
    throw e;
  }
  const { url, child } = server;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    await cleanUp();
  };

  const client = createOpencodeClient({ baseUrl: url, directory: projectDir });
  return {
    url,
    client,
    rootDir,
    projectDir,
    homeDir,
    globalConfigDir,
    globalRulesDir,
    projectRulesDir,
    dataDir: path.join(xdg.XDG_DATA_HOME, "opencode"),
    fakeModel,
    env,
    pid: child.pid!,
    logs: server.logs,
    stdout: server.stdout,
    probe: () => readProbe(probeLog),
    probeLog,
    writeProjectFile(rel, content) {
      const file = path.join(projectDir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
    stop,
  };
}
