/**
 * What a finished call of OpenCode's tools touched, as the engine takes it:
 * the files its arguments name, the lines of its listing, and the text it
 * brought into the session by file (a read's output, a write's content, the
 * lines an edit or a patch adds), which rules with content conditions look at.
 */
import type { ToolTouch } from "../../engine/contract.js";
import { MAX_CONTENT_CHARS } from "../../select/content.js";
import { proposedChanges } from "./tool-changes.js";
import { pathsFromToolArgs, pathsFromToolOutput } from "./tool-paths.js";

export const touchedBy = (tool: string, args: unknown, output: string): ToolTouch => ({
  tool,
  files: pathsFromToolArgs(args),
  listed: pathsFromToolOutput(tool, output),
  texts: () => textsBroughtIn(tool, args, output),
});

/** The text a call brought in, by the file it is of: a read's file text, a write's content, an edit's or a patch's added lines. */
export function textsBroughtIn(tool: string, args: unknown, output: string): { file: string; text: string }[] {
  if (tool === "read") {
    const [file] = pathsFromToolArgs(args);
    return file === undefined || output === "" ? [] : [{ file, text: fileTextOfRead(output) }];
  }
  return proposedChanges(tool, args).flatMap((change) => {
    if (change.kind === "write") return [{ file: change.path, text: change.content }];
    if (change.kind === "edit") return [{ file: change.path, text: change.added.map(({ text }) => text).join("\n") }];
    return [];
  });
}

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

/** Where the wrapper's closing line begins, or -1: the file's own lines all begin with their numbers, and what follows it (a reminder OpenCode adds) is not the file's. */
function closingLine(window: string): number {
  if (window.startsWith(CLOSE)) return 0;
  const at = window.indexOf(`\n${CLOSE}`);
  return at < 0 ? -1 : at + 1;
}

/** `12: ` (1.18) or `00012| ` (earlier): the number a read gives each line. */
const LINE_NUMBER = /^ *\d+(?:: |:$|\| ?)/;
