/**
 * The files in a session's context, read from what OpenCode tells the plugin:
 * tool arguments (intent, before the tool runs), tool results (glob and grep
 * listings), the user's prompt (attached files, paths written in the text)
 * and `file.edited` events. Pure: existence checks are passed in.
 *
 * Paths are kept project-relative with POSIX separators; a path outside the
 * project stays absolute, so only an absolute glob can match it.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { atTokens } from "../select/mentions.js";

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
    for (const edit of record.edits.slice(0, MAX_PATHS_PER_CALL)) if (edit && typeof edit === "object") paths.push(...pathsUnderKeys(edit as Record<string, unknown>));
  // patch / apply_patch: the files named in the patch text.
  for (const key of ["patchText", "patch", "input"]) {
    if (typeof record[key] === "string") paths.push(...pathsFromPatch(record[key] as string));
  }
  return paths.filter((path) => path.trim() !== "").slice(0, MAX_PATHS_PER_CALL);
}

function pathsUnderKeys(record: Record<string, unknown>): string[] {
  const paths: string[] = [];
  for (const key of PATH_KEYS) {
    const value = record[key];
    if (typeof value === "string") paths.push(value);
    else if (Array.isArray(value)) paths.push(...value.slice(0, MAX_PATHS_PER_CALL).filter((item): item is string => typeof item === "string"));
  }
  return paths;
}

/** Files a patch touches: `*** Update File: x`, `*** Add File: x`, `--- a/x`, `+++ b/x`. */
export function pathsFromPatch(patch: string): string[] {
  const paths: string[] = [];
  for (const match of patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$|^(?:\+\+\+|---) (?:[ab]\/)?(.+)$/gm)) {
    const path = (match[1] ?? match[2] ?? match[3] ?? "").trim();
    if (path && path !== "/dev/null") paths.push(path);
  }
  return paths;
}

/** Absolute paths listed in a glob or grep result that lie inside the project. */
export function pathsFromToolOutput(tool: string, output: string, projectRoot: string): string[] {
  if (tool !== "glob" && tool !== "grep" && tool !== "list") return [];
  const paths: string[] = [];
  for (const line of output.split("\n", MAX_PATHS_PER_CALL)) {
    const candidate = line.trim().replace(/:$/, "");
    if (candidate.startsWith(projectRoot + sep)) paths.push(candidate);
  }
  return paths;
}

/**
 * Path-like words of a prompt: `@src/app.ts`, `` `src/app.ts` ``, and bare
 * words with a folder or an extension. Only those that exist count; the
 * caller checks.
 */
export function pathCandidatesInPrompt(text: string): string[] {
  const candidates = new Set<string>(atTokens(text));
  for (const match of text.matchAll(/`([^`\n]{1,300})`/g)) candidates.add((match[1] ?? "").trim());
  for (const match of text.matchAll(
    /(?:^|[\s("'])((?:\.{0,2}\/|~\/)?[\p{L}\p{N}_\-.]+(?:\/[\p{L}\p{N}_\-.]+)*\.[\p{L}\p{N}]{1,10}|[\p{L}\p{N}_\-.]+(?:\/[\p{L}\p{N}_\-.]+)+\/?)(?=$|[\s)"',;:!?])/gmu,
  )) {
    candidates.add((match[1] ?? "").replace(/[.,;:!?]+$/, ""));
  }
  return [...candidates].filter((candidate) => candidate !== "" && !/^[a-z]+:\/\//i.test(candidate)).slice(0, 100);
}

/** A path as the working set keeps it: project-relative POSIX inside the project, absolute outside. */
export function normalisePath(raw: string, directory: string, projectRoot: string): string {
  const path = raw.startsWith("file://") ? fileUrlPath(raw) : raw;
  const absolute = isAbsolute(path) ? path : resolve(directory, path);
  const inProject = relative(projectRoot, absolute);
  if (inProject === "" || inProject.startsWith("..") || isAbsolute(inProject)) return absolute.split(sep).join("/");
  return inProject.split(sep).join("/");
}

/** The path of a `file://` URL; one that is not valid percent-encoding (`file:///tmp/100%.ts`) is taken as written. */
function fileUrlPath(url: string): string {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return url.slice("file://".length);
  }
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** Where paths in a prompt are resolved from. */
export interface PathBase {
  directory: string;
  projectRoot: string;
  home: string;
}

/**
 * Paths a prompt names, in working-set form with the absolute path to check:
 * only those that exist join the session. The engine and the command line's
 * `explain` both read prompts through here.
 */
export function pathsNamedInPrompt(prompt: string, ruleNames: ReadonlySet<string>, base: PathBase): Array<{ path: string; absolute: string }> {
  return pathCandidatesInPrompt(prompt)
    .filter((candidate) => !ruleNames.has(candidate)) // `@name` of a rule is a mention, not a file
    .map((candidate) => {
      const path = normalisePath(candidate.replace(/^~\//, `${base.home}/`), base.directory, base.projectRoot);
      return { path, absolute: path.startsWith("/") ? path : `${base.projectRoot}/${path}` };
    });
}
