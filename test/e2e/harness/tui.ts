/**
 * OpenCode's real terminal UI (`opencode attach`) driven through a private
 * tmux server, for the Rules panel's end-to-end test; and the setup that test
 * shares with `npm run demo:tui`: a project whose plugin is installed the way
 * a user installs it (`opencode plugin <package>`, which writes both
 * `.opencode/opencode.json` and `.opencode/tui.json`), and a fake model that
 * reads the file a prompt names.
 *
 * tmux gives the terminal UI a real terminal of a fixed size and prints its
 * screen as text (`capture-pane -p`). Each attachTui has its own tmux server
 * (`tmux -L <socket>`, no config file), so tests never touch the user's tmux;
 * stop() kills it, and so do a process-exit hook and a small shell sentinel
 * that outlives a killed test process just long enough to do it.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { RecordedRequest, Reply } from "./fake-model.js";
import { isMainRequest } from "./fake-model.js";
import {
  OPENCODE_BIN,
  REPO_ROOT,
  startOpencode,
  type OpencodeInstance,
  type PreparedDirs,
  type StartOptions,
} from "./opencode.js";
import { partsByKind } from "./rules.js";
import { sleep } from "./wait.js";

/** The terminal the tests give the terminal UI: wide enough for OpenCode's sidebar (shown above 120 columns). */
export const TUI_COLUMNS = 200;
export const TUI_ROWS = 50;
/** OpenCode 1.18's session sidebar: this many columns at the right edge of the terminal. */
export const SIDEBAR_COLUMNS = 42;
/** Headings of OpenCode 1.18's own sidebar blocks (the session title is the first line). */
export const OPENCODE_SIDEBAR_HEADINGS = ["Context", "MCP", "LSP", "Todo", "Modified Files"];

// ── The project: plugin installed with `opencode plugin`, a file to read ──

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

/** The environment of a terminal UI attached to `oc`: the server's own (isolated), in colour, on terminal `term`. */
export function tuiEnv(oc: OpencodeInstance, term = "xterm-256color"): Record<string, string> {
  const { NO_COLOR: _noColor, ...env } = oc.env;
  return { ...env, TERM: term };
}

// ── The screen as text ────────────────────────────────────────────────────

/** Columns a character takes in a terminal: 2 for East Asian wide and emoji, 0 for combining marks, else 1. */
function columnsOf(codePoint: number): number {
  if (
    (codePoint >= 0x300 && codePoint <= 0x36f) ||
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f)
  )
    return 0;
  const wide =
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd);
  return wide ? 2 : 1;
}

/** What a screen line shows from column `from` on (tmux prints each character once, whatever its width, and no trailing blanks). */
function fromColumn(line: string, from: number): string {
  let column = 0;
  let out = "";
  for (const char of line) {
    if (column >= from) out += char;
    column += columnsOf(char.codePointAt(0)!);
  }
  return out;
}

/** The sidebar of a captured screen: the right-hand SIDEBAR_COLUMNS columns of each line, trimmed, one line each. */
export function sidebarOf(screen: string, columns = TUI_COLUMNS): string {
  return screen
    .split("\n")
    .map((line) => fromColumn(line, columns - SIDEBAR_COLUMNS).trim())
    .join("\n");
}

/**
 * The Rules block of a sidebar as one string: its lines from "Rules" to the
 * next block (a blank line, as OpenCode leaves one between blocks, or one of
 * OpenCode's headings) or the end, each trimmed, joined with spaces; so a
 * reason the panel wrapped onto a second line reads as one. "" when the
 * sidebar has no Rules block.
 */
export function panelText(sidebar: string): string {
  const lines = sidebar.split("\n").map((line) => line.trim());
  const start = lines.indexOf("Rules");
  if (start < 0) return "";
  const block = [lines[start]!];
  for (const line of lines.slice(start + 1)) {
    if (line === "" || OPENCODE_SIDEBAR_HEADINGS.includes(line)) break;
    block.push(line);
  }
  return block.join(" ");
}

// ── The terminal UI in tmux ───────────────────────────────────────────────

/** What to wait for on the screen: a text it holds, a pattern it matches, or a test of the whole screen. */
export type ScreenMatch = string | RegExp | ((screen: string) => boolean);

export interface AttachedTui {
  /** The private tmux server's socket name (`tmux -L <socket>`). */
  socket: string;
  /** The whole screen now, as text (TUI_ROWS lines, trailing blanks trimmed). */
  screen(): string;
  /** The sidebar now (sidebarOf the screen). */
  sidebar(): string;
  /** Types `text` into the prompt, waits for it to show, and presses Enter. */
  type(text: string): Promise<void>;
  /** Polls the screen until it matches; returns that screen. On timeout, throws with the last screen. */
  waitForScreen(expected: ScreenMatch, options?: { timeoutMs?: number; message?: string }): Promise<string>;
  /** Kills the tmux server and the terminal UI. Idempotent. Does not stop the OpenCode server (oc.stop() does). */
  stop(): Promise<void>;
}

export interface AttachOptions {
  columns?: number;
  rows?: number;
  /** How long to wait for the home screen ("Ask anything"), ms. Default 30000. */
  readyTimeoutMs?: number;
}

/** tmux servers still running (name → socket file), killed when the process exits. */
const liveSockets = new Map<string, string>();
let exitHookInstalled = false;
let attachCount = 0;

function tmux(socket: string, args: string[]): { ok: boolean; stdout: string; stderr: string } {
  const run = spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  return { ok: run.status === 0, stdout: run.stdout ?? "", stderr: run.stderr ?? `${run.error ?? ""}` };
}

/** Kills a tmux server and removes its socket file (tmux leaves it behind). */
function killTmux(socket: string): void {
  tmux(socket, ["kill-server"]);
  const file = liveSockets.get(socket);
  if (file) fs.rmSync(file, { force: true });
  liveSockets.delete(socket);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const socket of [...liveSockets.keys()]) killTmux(socket);
  });
}

/** Runs detached: once the test process ($1) is gone, kills the tmux server ($2), removes its socket file ($3), kills the terminal UI ($4). */
const SENTINEL = `while kill -0 "$1" 2>/dev/null; do sleep 1; done
tmux -L "$2" -f /dev/null kill-server 2>/dev/null
rm -f "$3"
kill -KILL "$4" 2>/dev/null
exit 0`;

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Attaches OpenCode's terminal UI to a running instance, in a detached tmux
 * session of `columns` x `rows` (200 x 50), from the project folder, with the
 * server's isolated environment (in colour: no NO_COLOR). Resolves once the
 * home screen shows ("Ask anything"); throws with the screen if it does not.
 */
export async function attachTui(oc: OpencodeInstance, options: AttachOptions = {}): Promise<AttachedTui> {
  installExitHook();
  const columns = options.columns ?? TUI_COLUMNS;
  const rows = options.rows ?? TUI_ROWS;
  const socket = `rulebook-e2e-tui-${process.pid}-${++attachCount}`;
  const session = "tui";
  const envArgs = Object.entries(tuiEnv(oc)).map(([key, value]) => `${key}=${value}`);
  const command = ["env", "-i", ...envArgs, OPENCODE_BIN, "attach", oc.url, "--dir", oc.projectDir];
  // No status line (the pane is the whole window), and a pane whose program exited stays, so its last screen can be read.
  const started = tmux(socket, [
    ...["start-server", ";", "set-option", "-g", "status", "off", ";", "set-option", "-g", "remain-on-exit", "on", ";"],
    ...["new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows), "-c", oc.projectDir, ...command],
  ]);
  liveSockets.set(socket, "");
  if (!started.ok) {
    killTmux(socket);
    throw new Error(`tmux could not start the terminal UI: ${started.stderr}`);
  }
  const paneAndSocket = tmux(socket, [
    "display-message",
    "-p",
    "-t",
    session,
    "#{pane_pid} #{socket_path}",
  ]).stdout.trim();
  const pid = paneAndSocket.slice(0, paneAndSocket.indexOf(" "));
  const socketFile = paneAndSocket.slice(paneAndSocket.indexOf(" ") + 1);
  const panePid = Number(pid);
  liveSockets.set(socket, socketFile);
  const sentinel = spawn("/bin/sh", ["-c", SENTINEL, "tui-sentinel", String(process.pid), socket, socketFile, pid], {
    detached: true,
    stdio: "ignore",
  });
  sentinel.unref();

  const screen = () => {
    const captured = tmux(socket, ["capture-pane", "-p", "-t", session]);
    if (!captured.ok)
      throw new Error(`tmux capture-pane failed (is the terminal UI's tmux server gone?): ${captured.stderr}`);
    return captured.stdout.replace(/\n$/, "");
  };
  const exited = () => tmux(socket, ["display-message", "-p", "-t", session, "#{pane_dead}"]).stdout.trim() === "1";

  const waitForScreen: AttachedTui["waitForScreen"] = async (expected, { timeoutMs = 30_000, message } = {}) => {
    const matches =
      typeof expected === "string"
        ? (s: string) => s.includes(expected)
        : expected instanceof RegExp
          ? (s: string) => expected.test(s)
          : expected;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = screen();
      if (matches(now)) return now;
      if (Date.now() >= deadline || exited()) {
        const what = message ?? (typeof expected === "function" ? "the screen" : String(expected));
        const why = exited() ? "the terminal UI exited" : `timed out after ${timeoutMs}ms`;
        throw new Error(`waiting for ${what}: ${why}. The screen:\n${now}`);
      }
      await sleep(200);
    }
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    killTmux(socket);
    // tmux hangs up on the pane's program; make sure the terminal UI is gone before the server is stopped.
    for (let i = 0; i < 30 && panePid > 0 && isAlive(panePid); i++) await sleep(100);
    if (panePid > 0 && isAlive(panePid)) process.kill(panePid, "SIGKILL");
    if (sentinel.pid !== undefined && isAlive(sentinel.pid)) process.kill(sentinel.pid, "SIGKILL");
  };

  const tui: AttachedTui = {
    socket,
    screen,
    sidebar: () => sidebarOf(screen(), columns),
    async type(text) {
      const send = tmux(socket, ["send-keys", "-t", session, "-l", text]);
      if (!send.ok) throw new Error(`tmux send-keys failed: ${send.stderr}`);
      await waitForScreen(text, { timeoutMs: 10_000, message: `the typed text ${JSON.stringify(text)} in the prompt` });
      tmux(socket, ["send-keys", "-t", session, "Enter"]);
    },
    waitForScreen,
    stop,
  };
  try {
    await waitForScreen("Ask anything", {
      timeoutMs: options.readyTimeoutMs ?? 30_000,
      message: "the terminal UI's home screen",
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return tui;
}
