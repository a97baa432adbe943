/**
 * OpenCode's real terminal UI (`opencode attach`) driven through a private
 * tmux server, for the Rules panel's end-to-end test; the project it runs on
 * (the plugin installed with `opencode plugin`, a fake model that reads the
 * file a prompt names) is tui-project.ts.
 *
 * tmux gives the terminal UI a real terminal of a fixed size and prints its
 * screen as text (`capture-pane -p`). Each attachTui has its own tmux server
 * (`tmux -L <socket>`, no config file), so tests never touch the user's tmux;
 * stop() kills it, and so do a process-exit hook and a small shell sentinel
 * that outlives a killed test process just long enough to do it.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import type { OpencodeInstance } from "./opencode.js";
import { OPENCODE_BIN } from "./server.js";
import { sleep } from "./wait.js";

/** The terminal the tests give the terminal UI: wide enough for OpenCode's sidebar (shown above 120 columns). */
export const TUI_COLUMNS = 200;
export const TUI_ROWS = 50;
/** OpenCode 1.18's session sidebar: this many columns at the right edge of the terminal. */
export const SIDEBAR_COLUMNS = 42;
/** Headings of OpenCode 1.18's own sidebar blocks (the session title is the first line). */
export const OPENCODE_SIDEBAR_HEADINGS = ["Context", "MCP", "LSP", "Todo", "Modified Files"];

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
