/**
 * OpenCode 2's log: its Promise plugins get no log API (the context has no
 * log domain; the migration guide replaces `client.app.log` with `console`),
 * so lines go to the console, under the plugin's service name.
 */
import { type LogLevel, type LogSink, SERVICE } from "../../log.js";

const WRITERS: Record<LogLevel, (line: string) => void> = {
  debug: (line) => console.debug(line),
  info: (line) => console.info(line),
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
};

export const consoleLogSink: LogSink = async (level, message, extra) => {
  WRITERS[level](`[${SERVICE}] ${level}: ${message}${extra ? ` ${JSON.stringify(extra)}` : ""}`);
};
