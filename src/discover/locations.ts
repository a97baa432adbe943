/**
 * Where rule folders are. Pure: the environment, home folder and OpenCode's
 * `directory` / `worktree` come in as arguments.
 */
import { dirname, isAbsolute, join, parse, relative, sep, win32 } from "node:path";
import { isNormalPath, relativePath } from "../rule/relative-path.js";

/** The project's own rules folder, under every project level. */
export const NATIVE_RULES = ".opencode/rules";

/**
 * OpenCode's config folder: `$OPENCODE_CONFIG_DIR`, else
 * `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. An empty variable
 * counts as unset.
 */
export function openCodeConfigDir(env: Record<string, string | undefined>, home: string): string {
  if (env.OPENCODE_CONFIG_DIR) return env.OPENCODE_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "opencode");
}

/**
 * OpenCode's managed config folder, where an administrator's deployment tools
 * put what users may not change (OpenCode 1.18.33 \`managedConfigDir\`):
 * `/etc/opencode`, `/Library/Application Support/opencode` on macOS,
 * `%ProgramData%\\opencode` on Windows; `$OPENCODE_TEST_MANAGED_CONFIG_DIR` moves it
 * for OpenCode, so for the plugin too.
 */
function managedConfigDir(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.OPENCODE_TEST_MANAGED_CONFIG_DIR) return env.OPENCODE_TEST_MANAGED_CONFIG_DIR;
  if (platform === "darwin") return "/Library/Application Support/opencode";
  if (platform === "win32") return win32.join(env.ProgramData || "C:\\ProgramData", "opencode");
  return "/etc/opencode";
}

/**
 * The managed rules folder: `rules` in the managed config folder, or
 * `$OPENCODE_RULEBOOK_MANAGED_DIR` (an administrator who deploys elsewhere;
 * tests). Its \`rulebook.json\` (managed packs), lock and pack cache sit beside it.
 */
export function managedRulesDir(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.OPENCODE_RULEBOOK_MANAGED_DIR) return env.OPENCODE_RULEBOOK_MANAGED_DIR;
  return (platform === "win32" ? win32.join : join)(managedConfigDir(env, platform), "rules");
}

/** The global rules folder: `rules` in OpenCode's config folder. */
export function globalRulesDir(env: Record<string, string | undefined>, home: string): string {
  return join(openCodeConfigDir(env, home), "rules");
}

/**
 * The folders from the worktree root down to `directory`, root first, so the
 * nearest folder comes last (a monorepo package's rules after the repo's).
 * Only `directory` itself when it is not inside the worktree, or when the
 * worktree is the file system root (OpenCode says `/` outside a git repo).
 */
export function foldersFromRoot(directory: string, worktree: string): string[] {
  const rel = relative(worktree, directory);
  if (
    !worktree ||
    worktree === directory ||
    worktree === parse(worktree).root ||
    rel.startsWith("..") ||
    isAbsolute(rel)
  )
    return [directory];
  const folders = [directory];
  let current = directory;
  while (current !== worktree && dirname(current) !== current) {
    current = dirname(current);
    folders.unshift(current);
  }
  return folders;
}

/** The folder globs are relative to: the worktree root when the directory is inside it, else the directory. */
export function projectRoot(directory: string, worktree: string): string {
  return foldersFromRoot(directory, worktree)[0] ?? directory;
}

/** `.opencode/rules` of every folder from the worktree root down to `directory`. */
export function projectRulesDirs(directory: string, worktree: string): string[] {
  return foldersFromRoot(directory, worktree).map((folder) => join(folder, NATIVE_RULES));
}

/** How a path is shown to people and the model: `~/…` under home, project-relative inside the project. */
export function displayPath(path: string, projectRoot: string, home: string): string {
  const inProject = relativePath(projectRoot, path);
  if (projectRoot && !inProject.startsWith("..") && !isAbsolute(inProject)) return inProject.split(sep).join("/");
  const inHome = relativePath(home, path);
  if (home && !inHome.startsWith("..") && !isAbsolute(inHome)) return `~/${inHome.split(sep).join("/")}`;
  return path;
}

/**
 * The paths of a folder's entries, as `join(dir, name)` gives them. A name
 * from `readdir` is never empty, `.` or `..`, and holds no separator: under
 * a folder in normal form, `join` would only add the separator.
 */
export function childPaths(dir: string): (name: string) => string {
  if (!isNormalPath(dir)) return (name) => join(dir, name);
  const prefix = dir === "/" ? dir : `${dir}/`;
  return (name) => prefix + name;
}
