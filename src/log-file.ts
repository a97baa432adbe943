/**
 * The plugin's own log file, for a host that gives plugins no log API
 * (OpenCode 2): `opencode-rulebook.log` in OpenCode's log folder, beside
 * OpenCode's own logs. Never stdout: a host reads its server's first line
 * there. Warnings and errors also go to stderr, where a developer running
 * OpenCode with its logs printed sees them.
 *
 * Bounded: once the file passes `maxBytes` it becomes `opencode-rulebook.1.log`
 * (replacing the one before) and a new file starts, so the two hold at most
 * about twice `maxBytes`. Lines are written in order, a batch at a time; a
 * line never spans two lines of the file (control characters are escaped:
 * a rule file's name is the repository's text). Writing never throws: a file
 * that cannot be written is said once on stderr, and the lines go on to stderr
 * only when they are warnings or errors.
 */
import { appendFile, mkdir, rename, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type LogLevel, type LogSink, SERVICE } from "./log.js";

const LOG_FILE_NAME = `${SERVICE}.log`;
export const ROTATED_LOG_FILE_NAME = `${SERVICE}.1.log`;
/** Past this the file is rotated. */
const MAX_LOG_BYTES = 1024 * 1024;

/**
 * OpenCode's log folder: `log` in its data folder, `$XDG_DATA_HOME/opencode`,
 * else `~/.local/share/opencode`. OpenCode 2's documentation names
 * `~/.local/share/opencode/log` (`troubleshooting.mdx` @ae9f5d8); the
 * `XDG_DATA_HOME` override is OpenCode 1's (`Global.Path.log` from
 * `xdg-basedir`), not read in 2.x's source. An empty variable counts as unset.
 */
export function openCodeLogDir(env: Record<string, string | undefined>, home: string): string {
  return join(env.XDG_DATA_HOME || join(home, ".local", "share"), "opencode", "log");
}

/** Where the plugin writes its log on a host without a log API. */
export function rulebookLogFile(env: Record<string, string | undefined>, home: string): string {
  return join(openCodeLogDir(env, home), LOG_FILE_NAME);
}

interface FileLogOptions {
  maxBytes?: number;
  /** Where warnings and errors also go, and the one line about a file that cannot be written. */
  stderr?: (text: string) => void;
  now?: () => Date;
}

/** One line of the file: time, level, message, extra as JSON; nothing in it can start another line. */
export function logLine(time: Date, level: LogLevel, message: string, extra?: Record<string, unknown>): string {
  let tail = "";
  if (extra) {
    try {
      tail = ` ${JSON.stringify(extra)}`;
    } catch {
      tail = " {extra not serialisable}";
    }
  }
  return `${time.toISOString()} ${level.toUpperCase().padEnd(5)} ${escapeControls(message + tail)}\n`;
}

/** A sink that appends to `file`, rotating it past `maxBytes`. */
export function fileLogSink(file: string, options: FileLogOptions = {}): LogSink {
  const maxBytes = options.maxBytes ?? MAX_LOG_BYTES;
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const now = options.now ?? (() => new Date());
  let queued: string[] = [];
  let writing: Promise<void> = Promise.resolve();
  let broken = false;

  const writeBatch = async () => {
    const batch = queued.join("");
    queued = [];
    if (batch === "" || broken) return;
    try {
      await mkdir(dirname(file), { recursive: true });
      await appendFile(file, batch, { mode: 0o600 });
      // The real size: another OpenCode process may write the same file.
      if ((await stat(file)).size > maxBytes) await rename(file, join(dirname(file), ROTATED_LOG_FILE_NAME));
    } catch (error) {
      broken = true;
      safely(() =>
        stderr(
          `[${SERVICE}] cannot write its log file ${file} (${error instanceof Error ? error.message : String(error)}); warnings and errors go to stderr only\n`,
        ),
      );
    }
  };

  return (level, message, extra) => {
    const line = logLine(now(), level, message, extra);
    if (level === "warn" || level === "error") safely(() => stderr(`[${SERVICE}] ${line}`));
    queued.push(line);
    // One batch after the one under way: lines keep their order, and a burst is one write.
    writing = writing.then(writeBatch);
    return writing;
  };
}

function safely(write: () => void): void {
  try {
    write();
  } catch {
    // stderr closed: nowhere left to say it.
  }
}

/** Control characters (newlines included) as `\u00XX`, so a message stays on its line. */
function escapeControls(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters escaped.
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
