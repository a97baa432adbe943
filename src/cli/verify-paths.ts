/**
 * The paths `verify` is given, held to what they name, so that a check
 * cannot pass by mistake: a path that does not exist (a typo in a hook or a
 * CI step) or that leads out of the repository through a symlink, in any
 * part of it, is an error (exit 2), not "nothing broken". A path is checked
 * where it leads, named by its place under the repository's real root.
 */
import { realpath, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { errorCode, errorReason } from "../discover/fs.js";
import { shownText } from "../render/shown-text.js";
import { inside } from "../rule/trust.js";
import { UsageError, type ProjectContext } from "./context.js";

/**
 * The paths a user named, project-relative POSIX (`""` for the whole
 * project), as written: one outside the project is a usage error. Where each
 * leads (symlinks), and whether it exists, the targets' readers check.
 */
export function namedPaths(
  project: Pick<ProjectContext, "directory" | "projectRoot">,
  raw: readonly string[],
): string[] {
  return raw.map((path) => {
    const absolute = resolve(project.directory, path);
    if (!inside(absolute, [project.projectRoot]))
      throw new UsageError(`${shownText(path)} is outside the repository (${shownText(project.projectRoot)})`);
    return relative(project.projectRoot, absolute).split(sep).join("/");
  });
}

/** A path named on the command line, as far as it leads. */
interface NamedPath {
  /** As named: project-relative POSIX, `""` for the whole project. */
  named: string;
  /** Where it leads, relative to the repository's real root, POSIX: what is checked, and the name findings carry. */
  real: string;
  kind: "file" | "folder" | "missing";
}

/**
 * Each named path resolved under `realRoot` (the project's root, symlinks
 * resolved): one that leads outside it is wrong usage, whether it exists or
 * not; one that is neither a file nor a folder (a FIFO, a device) too. A
 * missing path is returned as such: `--diff` accepts one git still knows.
 */
export async function resolveNamed(root: string, realRoot: string, paths: readonly string[]): Promise<NamedPath[]> {
  const resolved: NamedPath[] = [];
  for (const named of paths) {
    const full = join(root, named);
    const real = await leadsTo(full, named);
    if (!inside(real, [realRoot])) {
      throw new UsageError(
        `${shownPath(named)} is outside the repository: it leads to ${shownText(real)}, and the repository is ${shownText(realRoot)}`,
      );
    }
    const info = await stat(full).catch(() => undefined);
    if (info && !info.isFile() && !info.isDirectory())
      throw new UsageError(`${shownPath(named)} is not a file or a folder`);
    const kind = !info ? "missing" : info.isDirectory() ? "folder" : "file";
    resolved.push({ named, real: relative(realRoot, real).split(sep).join("/"), kind });
  }
  return resolved;
}

/** The error for a named path that names nothing. */
export const doesNotExist = (named: string): UsageError => new UsageError(`${shownPath(named)} does not exist`);

const shownPath = (named: string): string => (named === "" ? "." : shownText(named));

/**
 * Where `path` leads after every symlink in it: the real path of its longest
 * part that exists, the rest appended as written (a missing file under a
 * linked folder still leads where the folder does).
 */
async function leadsTo(path: string, named: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    const code = errorCode(error);
    const parent = dirname(path);
    if ((code === "ENOENT" || code === "ENOTDIR") && parent !== path)
      return join(await leadsTo(parent, named), basename(path));
    throw new UsageError(`${shownPath(named)} cannot be followed (${errorReason(error)})`);
  }
}
