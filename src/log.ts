/**
 * Logging into the host's own log (a sink each host adapter gives; OpenCode 1:
 * `client.app.log`, service `opencode-rulebook`), so the terminal UI stays
 * clean. Debug lines only when debug is on; warnings and errors always.
 * Logging never throws, and never waits on its sink past `SINK_WAIT_MS`.
 */

export type LogLevel = "debug" | "info" | "warn" | "error";
type LogExtra = Record<string, unknown>;

export interface Logger {
  debugEnabled: boolean;
  debug(message: string, extra?: LogExtra): void;
  info(message: string, extra?: LogExtra): void;
  warn(message: string, extra?: LogExtra): void;
  error(message: string, extra?: LogExtra): void;
  /** Resolves when every log line sent so far has been handed over (tests, shutdown). */
  flush(): Promise<void>;
}

export const SERVICE = "opencode-rulebook";

export type LogSink = (level: LogLevel, message: string, extra?: LogExtra) => Promise<unknown>;

/**
 * How long a log line is waited for: a sink that never answers (a host's log call, a hung disk) holds neither `flush`
 * nor memory past it.
 */
export const SINK_WAIT_MS = 5000;

export function createLogger(sink: LogSink, debugEnabled: boolean): Logger {
  const pending = new Set<Promise<unknown>>();
  const write = (level: LogLevel, message: string, extra?: LogExtra) => {
    // A log line that cannot be written, even by a sink that throws at once, must not break the session.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const given = Promise.resolve()
      .then(() => sink(level, message, extra))
      .catch(() => undefined);
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SINK_WAIT_MS);
      timer.unref?.();
    });
    const sent = Promise.race([given, waited]).finally(() => {
      clearTimeout(timer);
      pending.delete(sent);
    });
    pending.add(sent);
  };
  return {
    debugEnabled,
    debug: (message, extra) => {
      if (debugEnabled) write("debug", message, extra);
    },
    info: (message, extra) => write("info", message, extra),
    warn: (message, extra) => write("warn", message, extra),
    error: (message, extra) => write("error", message, extra),
    flush: async () => {
      await Promise.all([...pending]);
    },
  };
}
