/**
 * What a finished call of OpenCode's tools touched, as the engine takes it:
 * the files its arguments name, the lines of its listing, and the text it
 * brought into the session by file (a read's output, a write's content, the
 * lines an edit or a patch adds), which rules with content conditions look at.
 */
import type { ToolTouch } from "../../engine/contract.js";
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

/**
 * The file's own text in a `read` result: OpenCode 1.18 wraps it in
 * `<content>` with each line as `12: text` and a closing `(End of file …)`
 * note; earlier versions wrote `00012| text`. A result in neither form is
 * taken as it is.
 */
export function fileTextOfRead(output: string): string {
  const open = output.indexOf("<content>");
  const close = output.lastIndexOf("</content>");
  const body = open < 0 ? output : output.slice(open + "<content>".length, close > open ? close : undefined);
  const lines = body.split("\n");
  const numbered = lines.filter((line) => LINE_NUMBER.test(line)).length;
  // Only a body whose lines carry numbers is the file's lines with them: anything else is left whole.
  if (numbered === 0 || numbered < lines.filter((line) => line.trim() !== "").length / 2) return body;
  return lines
    .filter((line) => LINE_NUMBER.test(line))
    .map((line) => line.replace(LINE_NUMBER, ""))
    .join("\n");
}

/** `12: ` (1.18) or `00012| ` (earlier): the number a read gives each line. */
const LINE_NUMBER = /^ *\d+(?:: |:$|\| ?)/;
