/**
 * What a call of OpenCode's own tools would do, read from its arguments
 * before it runs: the files it writes (whole, or by the replacements an edit
 * or a patch makes, which the engine applies to the file's text), the command
 * it runs. Both generations: 1.x names a file `filePath`, 2.x `path` (both
 * edit with `oldString`, `newString`, `replaceAll`); 1.x runs
 * commands with `bash`, 2.x with `shell` (earlier 2.x cores: `bash`); the
 * patch tool is `apply_patch` (1.x, earlier 2.x) or `patch` (later 2.x), and
 * OpenCode offers it instead of `edit` and `write` to GPT models. A tool not
 * named here proposes nothing, so it is never blocked; arguments that do not
 * fit the tool's shape propose nothing either.
 */
import { addedAlone } from "../../enforce/added-lines.js";
import type { ProposedChange, Replacement } from "../../enforce/proposed.js";
import { PATCH_TEXT_KEYS, patchedFiles } from "./patch-text.js";
import { MAX_PATHS_PER_CALL } from "./tool-paths.js";

type Args = Record<string, unknown>;

/** The changes one tool call proposes; none for a tool that neither writes files nor runs commands, or that the plugin does not know. */
export function proposedChanges(tool: string, args: unknown): ProposedChange[] {
  switch (tool) {
    case "write":
      return writeChanges(recordOf(args));
    case "edit":
      return editChanges(recordOf(args));
    case "multiedit":
      return multieditChanges(recordOf(args));
    case "patch":
    case "apply_patch":
      return patchChanges(args);
    case "bash":
    case "shell":
      return commandChanges(recordOf(args));
    default:
      return [];
  }
}

function recordOf(args: unknown): Args {
  return args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Args) : {};
}

const stringAt = (args: Args, key: string): string | undefined =>
  typeof args[key] === "string" ? (args[key] as string) : undefined;

/** The file a call names: `filePath` (1.x), `path` (2.x). */
const pathOf = (args: Args): string | undefined =>
  [stringAt(args, "filePath"), stringAt(args, "path")].find((path) => path !== undefined && path.trim() !== "");

/** A whole file: the engine compares it with the file on disk, so only the lines not there already count. */
function writeChanges(args: Args): ProposedChange[] {
  const path = pathOf(args);
  const content = stringAt(args, "content");
  return path === undefined || content === undefined ? [] : [{ kind: "write", path, content }];
}

/** An edit with an empty oldString is OpenCode 1.x's "create or overwrite with newString" (2.x refuses it): a write. */
function editChanges(args: Args): ProposedChange[] {
  const path = pathOf(args);
  const replacement = replacementOf(args);
  if (path === undefined || replacement === undefined) return [];
  if (replacement.oldText === "") return [{ kind: "write", path, content: replacement.newText }];
  return [{ kind: "edit", path, replacements: [replacement], added: addedAlone(replacement) }];
}

function replacementOf(args: Args): Replacement | undefined {
  const oldText = stringAt(args, "oldString");
  const newText = stringAt(args, "newString");
  if (oldText === undefined || newText === undefined) return undefined;
  return args.replaceAll === true ? { oldText, newText, all: true } : { oldText, newText };
}

/**
 * Older 1.x: `{ filePath, edits: [{ filePath, oldString, newString, replaceAll }] }`.
 * The host applies every entry, in order, to the top-level file; an entry's
 * own path counts only when that is missing. One edit per file, its entries'
 * replacements in order (an entry with an empty oldString rewrites the file,
 * as the host's edit does).
 */
function multieditChanges(args: Args): ProposedChange[] {
  if (!Array.isArray(args.edits)) return [];
  const path = pathOf(args);
  const byPath = new Map<string, Replacement[]>();
  for (const entry of args.edits.slice(0, MAX_PATHS_PER_CALL)) {
    const entryPath = path ?? pathOf(recordOf(entry));
    const replacement = replacementOf(recordOf(entry));
    if (entryPath === undefined || replacement === undefined) continue;
    const replacements = byPath.get(entryPath) ?? [];
    replacements.push(replacement);
    byPath.set(entryPath, replacements);
  }
  return [...byPath].map(([file, replacements]) => ({
    kind: "edit",
    path: file,
    replacements,
    added: replacements.flatMap(addedAlone),
  }));
}

/** One edit per file the patch writes. The text is `patchText` (or a plugin tool's `patch`/`input`), or the arguments themselves when the model sent the patch freeform. */
function patchChanges(args: unknown): ProposedChange[] {
  const record = recordOf(args);
  const text =
    typeof args === "string"
      ? args
      : PATCH_TEXT_KEYS.map((key) => stringAt(record, key)).find((value) => value !== undefined);
  if (text === undefined) return [];
  return patchedFiles(text).map((file) => ({ kind: "edit", ...file }));
}

function commandChanges(args: Args): ProposedChange[] {
  const command = stringAt(args, "command");
  return command === undefined || command.trim() === "" ? [] : [{ kind: "command", command }];
}
