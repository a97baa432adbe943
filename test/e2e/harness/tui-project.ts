/**
 * The project the Rules panel's end-to-end test and `npm run demo:tui` run
 * the terminal UI on (tui.ts): its plugin installed the way a user installs
 * it (`opencode plugin <package>`, which writes both `.opencode/opencode.json`
 * and `.opencode/tui.json`), a file to read, and a fake model that reads the
 * file a prompt names.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { RecordedRequest, Reply } from "./fake-model.js";
import { isMainRequest } from "./fake-model.js";
import { REPO_ROOT, startOpencode, type OpencodeInstance, type PreparedDirs, type StartOptions } from "./opencode.js";
import { partsByKind } from "./rules.js";
import { OPENCODE_BIN } from "./server.js";

/** The source file of every project here; a prompt naming it makes the fake model read it. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript file, template literal included
export const APP_TS = "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n";

/** Parsed `.opencode/opencode.json` and `.opencode/tui.json` after `opencode plugin`, and what the command printed. */
export interface InstalledPlugin {
  opencode: { plugin?: unknown[] } & Record<string, unknown>;
  tui: { plugin?: unknown[] } & Record<string, unknown>;
  output: string;
}

/**
 * The environment for OpenCode commands run before the server starts (in
 * StartOptions.prepare): the same temporary HOME and XDG folders as the server
 * (startOpencode puts them under homeDir, the config folder's parent being
 * XDG_CONFIG_HOME), offline, nothing of the user's.
 */
export function preparedEnv(dirs: PreparedDirs): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ["PATH", "LANG", "LC_ALL", "TZ", "TMPDIR"])
    if (process.env[key] !== undefined) env[key] = process.env[key]!;
  return {
    ...env,
    HOME: dirs.homeDir,
    XDG_CONFIG_HOME: path.dirname(dirs.globalConfigDir),
    XDG_DATA_HOME: path.join(dirs.homeDir, ".local", "share"),
    XDG_STATE_HOME: path.join(dirs.homeDir, ".local", "state"),
    XDG_CACHE_HOME: path.join(dirs.homeDir, ".cache"),
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_MODELS_URL: "http://127.0.0.1:9",
    NO_COLOR: "1",
  };
}

function readJson(file: string, output: string): InstalledPlugin["tui"] {
  if (!fs.existsSync(file)) throw new Error(`opencode plugin did not write ${file}. Its output:\n${output}`);
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/**
 * Installs this repository as a plugin of the project, as users do with
 * `opencode plugin opencode-rulebook` (here the repository's path stands for
 * the package): OpenCode reads the package's exports and adds it to the
 * project's `.opencode/opencode.json` (server) and `.opencode/tui.json`
 * (terminal UI). Throws with the command's output when it fails or either
 * file is missing.
 */
export function installPlugin(projectDir: string, env: Record<string, string>): InstalledPlugin {
  const run = spawnSync(OPENCODE_BIN, ["plugin", REPO_ROOT], {
    cwd: projectDir,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  if (run.status !== 0)
    throw new Error(
      `opencode plugin ${REPO_ROOT} failed (exit ${run.status}${run.error ? `, ${run.error.message}` : ""}). Its output:\n${output}`,
    );
  const configDir = path.join(projectDir, ".opencode");
  return {
    opencode: readJson(path.join(configDir, "opencode.json"), output),
    tui: readJson(path.join(configDir, "tui.json"), output),
    output,
  };
}

/** The user's own words in the last user message of a request (the plugin's rules and OpenCode's reminders set aside). */
function userWords(request: RecordedRequest): string {
  const user = request.body.messages.findLast((message) => message.role === "user");
  return partsByKind(user?.content)
    .filter((part) => part.kind === "text")
    .map((part) => part.text)
    .join(" ")
    .trim();
}

/** The project's files named in some words ("Read src/app.ts." names src/app.ts), as paths relative to the project. */
function filesNamed(words: string, projectDir: string): string[] {
  const candidates = (words.match(/[\w@./-]+/g) ?? [])
    .map((word) => word.replace(/[.]+$/, ""))
    .filter((word) => /\.\w+$/.test(word));
  return candidates.filter((rel) => {
    const file = path.resolve(projectDir, rel);
    return file.startsWith(`${projectDir}${path.sep}`) && fs.existsSync(file) && fs.statSync(file).isFile();
  });
}

/** The fake model's answer to a prompt that names no file of the project. */
export const plainAnswer = (words: string) =>
  `Scripted answer to "${words.length > 50 ? `${words.slice(0, 49)}…` : words}". Name a file (src/app.ts) and I read it.`;
/** The fake model's answer once the file it read is back. */
export const readAnswer = (rel: string) => `I read ${rel}: it exports greet().`;

/**
 * A fake-model responder for a person at the terminal UI: a prompt naming a
 * file of the project makes the model read it (a `read` tool call with its
 * absolute path), then say so once the result is back; any other prompt gets
 * a one-line answer (plainAnswer). Title requests fall through to the fake
 * model's title.
 */
export function fileReadingResponder(projectDir: string): (request: RecordedRequest) => Reply | undefined {
  return (request) => {
    if (!isMainRequest(request)) return undefined;
    const messages = request.body.messages;
    if (messages.at(-1)?.role === "tool") {
      const call = messages.findLast((message) => message.role === "assistant" && message.tool_calls?.length)
        ?.tool_calls?.[0];
      const filePath = call ? (JSON.parse(call.function.arguments) as { filePath?: string }).filePath : undefined;
      return readAnswer(filePath ? path.relative(projectDir, filePath) : "the file");
    }
    const words = userWords(request);
    const [file] = filesNamed(words, projectDir);
    if (file) return { toolCalls: [{ name: "read", arguments: { filePath: path.join(projectDir, file) } }] };
    return plainAnswer(words);
  };
}

export interface RulesProject {
  oc: OpencodeInstance;
  /** What `opencode plugin` wrote. */
  installed: InstalledPlugin;
}

/**
 * Starts OpenCode (startOpencode) on a project holding `src/app.ts` and the
 * given options' rules, with this package installed by `opencode plugin`
 * before the server starts (so the server loads it from the project's
 * `.opencode/opencode.json`, not from `pluginPath`), and the fake model
 * answering with fileReadingResponder. Build first: the package's exports
 * point into dist/.
 */
export async function startRulesProject(
  options: Omit<StartOptions, "pluginPath" | "pluginOptions"> = {},
): Promise<RulesProject> {
  let installed: InstalledPlugin | undefined;
  const oc = await startOpencode({
    ...options,
    projectFiles: { "src/app.ts": APP_TS, ...options.projectFiles },
    prepare: (dirs) => {
      options.prepare?.(dirs);
      installed = installPlugin(dirs.projectDir, preparedEnv(dirs));
    },
  });
  oc.fakeModel.respond(fileReadingResponder(oc.projectDir));
  return { oc, installed: installed! };
}
