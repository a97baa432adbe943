/**
 * What OpenCode's tools touch, read from their arguments and results: the
 * files a `read`, `edit`, `write`, `multiedit` or patch call names
 * (intent: a file about to be written counts before it exists), and the paths
 * a `glob`, `grep` or `list` result lists. Both OpenCode generations name
 * their tools' arguments the same way; plugin tools that follow the same keys
 * count too.
 */
import { PATCH_TEXT_KEYS, pathsFromPatch } from "./patch-text.js";

/** Argument keys that name files or folders, across OpenCode's tools and plugin tools. */
const PATH_KEYS = ["filePath", "path", "paths", "file", "files", "filepath"] as const;

/** Paths taken from one tool call or result: more is a listing, not a working set, and would only cost matching time. */
export const MAX_PATHS_PER_CALL = 2_000;

/** Raw paths a tool call names, before normalisation. */
export function pathsFromToolArgs(args: unknown): string[] {
  if (!args || typeof args !== "object") return [];
  const record = args as Record<string, unknown>;
  const paths = pathsUnderKeys(record);
  // multiedit: { filePath, edits: [{ filePath?, … }] }; one level only, whatever the model sends.
  if (Array.isArray(record.edits))
    for (const edit of record.edits.slice(0, MAX_PATHS_PER_CALL))
      if (edit && typeof edit === "object") paths.push(...pathsUnderKeys(edit as Record<string, unknown>));
  // patch / apply_patch: the files named in the patch text.
  for (const key of PATCH_TEXT_KEYS) {
    if (typeof record[key] === "string") paths.push(...pathsFromPatch(record[key] as string));
  }
  return paths.filter((path) => path.trim() !== "").slice(0, MAX_PATHS_PER_CALL);
}

function pathsUnderKeys(record: Record<string, unknown>): string[] {
  const paths: string[] = [];
  for (const key of PATH_KEYS) {
    const value = record[key];
    if (typeof value === "string") paths.push(value);
    else if (Array.isArray(value))
      paths.push(...value.slice(0, MAX_PATHS_PER_CALL).filter((item): item is string => typeof item === "string"));
  }
  return paths;
}

/** The lines of a `glob`, `grep` or `list` result that may be paths (the engine keeps those inside the project); none for other tools. */
export function pathsFromToolOutput(tool: string, output: string): string[] {
  if (tool !== "glob" && tool !== "grep" && tool !== "list") return [];
  return output
    .split("\n", MAX_PATHS_PER_CALL)
    .map((line) => line.trim().replace(/:$/, ""))
    .filter((line) => line !== "");
}
