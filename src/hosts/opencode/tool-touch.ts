/**
 * A finished call of OpenCode's tools as the engine takes it: the call (its
 * arguments read only when the engine kept nothing of it from before it
 * ran), the lines of its listing, and the file text a read brought in, which
 * rules with content conditions look at.
 */
import type { ToolTouch } from "../../engine/contract.js";
import { MAX_CONTENT_CHARS } from "../../select/content.js";
import { readToolCall } from "./tool-call.js";
import { pathsFromToolOutput } from "./tool-paths.js";

export const toolResultOf = (tool: string, callID: unknown, args: unknown, output: string): ToolTouch => ({
  tool,
  ...(typeof callID === "string" ? { callID } : {}),
  readCall: () => readToolCall(tool, callID, args),
  listed: pathsFromToolOutput(tool, output),
  ...(tool === "read" && output !== "" ? { fileText: () => fileTextOfRead(output) } : {}),
});

/** How far into a read's output its `<content>` opening is looked for: past the `<path>` and `<type>` lines. */
const READ_HEAD_CHARS = 64 * 1024;

/**
 * The file's own text in a `read` result: OpenCode 1.18 wraps it in
 * `<content>` with each line as `12: text` and a closing `(End of file …)`
 * note; earlier versions wrote `00012| text`. A result in neither form is
 * taken as it is. At most `limit` characters, from the start of the file:
 * the output is cut before it is taken apart, so a 50 MB result costs what
 * its first 2 MiB do.
 */
export function fileTextOfRead(output: string, limit = MAX_CONTENT_CHARS): string {
  const open = output.slice(0, READ_HEAD_CHARS).indexOf("<content>");
  const start = open < 0 ? 0 : open + "<content>".length;
  // Twice the text kept: room for the line numbers (`12: `) beside lines of 8 characters or more.
  const window = output.slice(start, start + 2 * limit + CLOSE.length + 1);
  const close = open < 0 ? -1 : closingLine(window);
  const body = close < 0 ? window.slice(0, 2 * limit) : window.slice(0, close);
  const lines = body.split("\n");
  const numbered = lines.filter((line) => LINE_NUMBER.test(line)).length;
  // Only a body whose lines carry numbers is the file's lines with them: anything else is left whole.
  if (numbered === 0 || numbered < lines.filter((line) => line.trim() !== "").length / 2) return body.slice(0, limit);
  return lines
    .filter((line) => LINE_NUMBER.test(line))
    .map((line) => line.replace(LINE_NUMBER, ""))
    .join("\n")
    .slice(0, limit);
}

const CLOSE = "</content>";

/**
 * Where the wrapper's closing line begins, or -1: the file's own lines all begin with their numbers, and what follows
 * it (a reminder OpenCode adds) is not the file's.
 */
function closingLine(window: string): number {
  if (window.startsWith(CLOSE)) return 0;
  const at = window.indexOf(`\n${CLOSE}`);
  return at < 0 ? -1 : at + 1;
}

/** `12: ` (1.18) or `00012| ` (earlier): the number a read gives each line. */
const LINE_NUMBER = /^ *\d+(?:: |:$|\| ?)/;
