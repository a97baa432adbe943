/**
 * What OpenCode's tools that write files or run commands would do, read from
 * a call's arguments before it runs: a `write`'s whole new text (the engine
 * compares it with the file on disk), an `edit`'s or `multiedit`'s new
 * lines, a patch's added lines, a `bash` command. Both OpenCode generations
 * name these tools and their arguments alike (`filePath` or `path`). A tool
 * not named here is never checked, so never refused. Pure; never throws.
 */
import { linesAdded } from "../../enforce/added-lines.js";
import type { AddedLine, ProposedChange } from "../../enforce/proposed.js";
import { MAX_PATHS_PER_CALL } from "./tool-paths.js";

type Args = Record<string, unknown>;

const READERS: Record<string, (args: Args) => ProposedChange[]> = {
  write: (args) => {
    const path = pathOf(args);
    return path !== undefined && typeof args.content === "string" ? [{ kind: "write", path, content: args.content }] : [];
  },
  edit: (args) => editOf(args, pathOf(args)),
  multiedit: (args) => {
    const path = pathOf(args);
    const edits = Array.isArray(args.edits) ? args.edits.slice(0, MAX_PATHS_PER_CALL) : [];
    return edits.flatMap((edit) => (isArgs(edit) ? editOf(edit, pathOf(edit) ?? path) : []));
  },
  patch: (args) => patchOf(args),
  apply_patch: (args) => patchOf(args),
  bash: (args) => (typeof args.command === "string" ? [{ kind: "command", command: args.command }] : []),
};

/** What the call would change; none for a tool that neither writes nor runs, or arguments of another shape. */
export function proposedChanges(tool: string, args: unknown): ProposedChange[] {
  const read = Object.hasOwn(READERS, tool) ? READERS[tool] : undefined;
  if (!read || !isArgs(args)) return [];
  try {
    return read(args);
  } catch {
    // Arguments of a shape no tool gives (a getter that throws): nothing to check, nothing refused.
    return [];
  }
}

const isArgs = (value: unknown): value is Args => typeof value === "object" && value !== null && !Array.isArray(value);

function pathOf(args: Args): string | undefined {
  for (const key of ["filePath", "path", "file", "filepath"]) if (typeof args[key] === "string" && args[key] !== "") return args[key] as string;
  return undefined;
}

/** An edit adds the new text's lines that the text it replaces did not hold. */
function editOf(args: Args, path: string | undefined): ProposedChange[] {
  if (path === undefined || typeof args.newString !== "string") return [];
  const old = typeof args.oldString === "string" ? args.oldString : "";
  const added = linesAdded(old, args.newString).map(({ text }) => ({ text }));
  return added.length === 0 ? [] : [{ kind: "edit", path, added }];
}

function patchOf(args: Args): ProposedChange[] {
  const text = ["patchText", "patch", "input"].map((key) => args[key]).find((value): value is string => typeof value === "string");
  return text === undefined ? [] : addedInPatch(text);
}

/**
 * The lines a patch adds, per file: OpenCode's `*** Begin Patch` format
 * (`*** Add File:` takes every `+` line, `*** Update File:` its hunks' `+`
 * lines, `*** Move to:` names where they go) and unified diffs (`+++ b/x`,
 * numbered from each `@@ -a,b +c,d @@`). Context and `-` lines add nothing.
 */
export function addedInPatch(patch: string): ProposedChange[] {
  const files = new Map<string, AddedLine[]>();
  let current: AddedLine[] | undefined;
  let next: number | undefined;
  const open = (path: string) => {
    const clean = path.trim();
    if (clean === "" || clean === "/dev/null" || (!files.has(clean) && files.size >= MAX_PATHS_PER_CALL)) return undefined;
    const lines = files.get(clean) ?? [];
    files.set(clean, lines);
    return lines;
  };
  let previous = "";
  for (const line of patch.replace(/\r\n?/g, "\n").split("\n")) {
    const afterOld = previous.startsWith("--- ");
    previous = line;
    const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (header) {
      current = header[1] === "Delete" ? undefined : open(header[2] as string);
      next = header[1] === "Add" ? 1 : undefined;
      continue;
    }
    const moved = /^\*\*\* Move to: (.+)$/.exec(line);
    if (moved && current) {
      const lines = current;
      current = open(moved[1] as string);
      current?.push(...lines.splice(0));
      continue;
    }
    // A unified diff's `+++` header follows its `---` line: elsewhere it is an added line that begins with `++`.
    const target = afterOld ? /^\+\+\+ (?:b\/)?(.+?)(?:\t.*)?$/.exec(line) : null;
    if (target) {
      current = open(target[1] as string);
      next = undefined;
      continue;
    }
    if ((line.startsWith("--- ") && next === undefined) || line.startsWith("*** ")) continue;
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      next = Number(hunk[1]);
      continue;
    }
    if (line.startsWith("@@")) {
      next = undefined;
      continue;
    }
    if (!current) continue;
    if (line.startsWith("+")) {
      current.push(next === undefined ? { text: line.slice(1) } : { text: line.slice(1), line: next });
      if (next !== undefined) next++;
    } else if (line.startsWith(" ") && next !== undefined) next++;
  }
  return [...files].filter(([, lines]) => lines.length > 0).map(([path, added]) => ({ kind: "edit", path, added }));
}
