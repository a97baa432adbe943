/**
 * The files in a session's context, as paths: those a host names (a tool's
 * arguments and listings, attachments, edited files) and those written in the
 * user's prompt. Pure: existence checks are passed in.
 *
 * Paths are kept project-relative with POSIX separators; a path outside the
 * project stays absolute, so only an absolute glob can match it.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { PlacedPath } from "../enforce/proposed.js";
import { isAscii } from "../conditions/case-fold.js";
import { atTokens } from "../select/mentions.js";

/** A path-like word: with an extension (and an optional `./`, `../`, `/` or `~/` first), or with a folder. */
const PATH_WORD =
  /(?:^|[\s("'])((?:\.{0,2}\/|~\/)?[\p{L}\p{N}_\-.]+(?:\/[\p{L}\p{N}_\-.]+)*\.[\p{L}\p{N}]{1,10}|[\p{L}\p{N}_\-.]+(?:\/[\p{L}\p{N}_\-.]+)+\/?)(?=$|[\s)"',;:!?])/gmu;
/**
 * PATH_WORD for a prompt of ASCII only, where `\p{L}` and `\p{N}` are letters
 * and digits: the same matches, without compiling Unicode's classes (a
 * millisecond or two in a fresh process, at every start).
 */
const PATH_WORD_ASCII =
  /(?:^|[\s("'])((?:\.{0,2}\/|~\/)?[A-Za-z0-9_\-.]+(?:\/[A-Za-z0-9_\-.]+)*\.[A-Za-z0-9]{1,10}|[A-Za-z0-9_\-.]+(?:\/[A-Za-z0-9_\-.]+)+\/?)(?=$|[\s)"',;:!?])/gm;

/**
 * Path-like words of a prompt: `@src/app.ts`, `` `src/app.ts` ``, and bare
 * words with a folder or an extension. Only those that exist count; the
 * caller checks.
 */
export function pathCandidatesInPrompt(text: string): string[] {
  const candidates = new Set<string>(atTokens(text));
  for (const match of text.matchAll(/`([^`\n]{1,300})`/g)) candidates.add((match[1] ?? "").trim());
  for (const match of text.matchAll(isAscii(text) ? PATH_WORD_ASCII : PATH_WORD)) {
    candidates.add((match[1] ?? "").replace(/[.,;:!?]+$/, ""));
  }
  return [...candidates].filter((candidate) => candidate !== "" && !/^[a-z]+:\/\//i.test(candidate)).slice(0, 100);
}

/**
 * Paths a tool listed (one per line, absolute) that lie inside the project: a listing outside it says nothing of the
 * session's work.
 */
export function listedInProject(lines: readonly string[], projectRoot: string): string[] {
  return lines.filter((line) => line.startsWith(projectRoot + sep));
}

/** A path as the working set keeps it: project-relative POSIX inside the project, absolute outside. */
export function normalisePath(raw: string, directory: string, projectRoot: string): string {
  return workingSetForm(written(raw), directory, projectRoot);
}

/** A path a tool call names, normalised once: as the working set keeps it, and absolute, to read. */
export function placedPath(raw: string, base: Pick<PathBase, "directory" | "projectRoot">): PlacedPath {
  const path = written(raw);
  return { path: workingSetForm(path, base.directory, base.projectRoot), absolute: resolve(base.directory, path) };
}

/** The path a raw path names: a `file://` URL's, or the path as written. */
const written = (raw: string): string => (raw.startsWith("file://") ? fileUrlPath(raw) : raw);

function workingSetForm(path: string, directory: string, projectRoot: string): string {
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
export function pathsNamedInPrompt(
  prompt: string,
  ruleNames: ReadonlySet<string>,
  base: PathBase,
): Array<{ path: string; absolute: string }> {
  return pathCandidatesInPrompt(prompt)
    .filter((candidate) => !ruleNames.has(candidate)) // `@name` of a rule is a mention, not a file
    .map((candidate) => {
      const path = normalisePath(candidate.replace(/^~\//, `${base.home}/`), base.directory, base.projectRoot);
      return { path, absolute: path.startsWith("/") ? path : `${base.projectRoot}/${path}` };
    });
}
