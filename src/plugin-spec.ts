/**
 * Whether a plugin entry of OpenCode's config names this package, read the
 * way OpenCode 1.18.33 reads it (`packages/opencode/src/plugin/shared.ts`,
 * `config/plugin.ts`) and OpenCode 2 (`packages/core/src/config/plugin/source.ts`),
 * without installing anything:
 * - a path: a `file://` URL, an absolute path, or one starting with `.`
 *   (relative to the config file's folder; in `.opencode/`, to the project
 *   folder too); to the package's folder (of any name) or to a file in it
 *   (`dist/index.js`, `dist/tui.js`);
 * - what OpenCode hands to npm: `opencode-rulebook[@version|tag|range|spec]`,
 *   an `npm:` alias, a folder (`~/…`, `file:…`, relative to OpenCode's working
 *   folder), a tarball, or a Git repository (`github:owner/repo`, `owner/repo`,
 *   `git+https://…/repo.git`, …).
 * A package a path leads to is known by its package.json's `name` (read by
 * the caller: this module does no I/O); a tarball and a Git repository by
 * their name, since their package.json is read only once npm has fetched them.
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_NAME = "opencode-rulebook";

/** What a spec leads to: a package by its name, or a local path (one of several where OpenCode's versions differ). */
type SpecTarget = { package: string } | { paths: string[] };

/** Where a spec is read: relative paths are resolved from here. */
interface SpecPlace {
  /** The config file holding the spec: OpenCode resolves a `.` path from its folder. */
  configFile: string;
  /** OpenCode's working folder: npm resolves a relative `file:` spec from it. */
  directory: string;
  home: string;
}

/** The package.json in `folder`, parsed; undefined when there is none, null when it cannot be read. */
export type ReadPackage = (folder: string) => unknown;

// npm's package name (scoped or not); an `npm:` alias; a tarball's `<name>-<version>.tgz`.
const NAME = String.raw`(?:@[^/@\s:]+\/)?[^/@\s:]+`;
const NAMED = new RegExp(`^(${NAME})(?:@|$)`);
const ALIAS = new RegExp(`^(?:${NAME}@)?npm:(${NAME})(?:@|$)`);
const TARBALL = /(?:^|\/)([^/]+?)-v?\d+\.\d+\.\d+[^/]*\.(?:tgz|tar\.gz|tar)$/i;
// A Git repository's name: the last part of `[host:]owner/repo`, a git URL or scp-style `user@host:owner/repo`, without
// `.git` and `#ref`.
const HOSTED = /^(?:(?:github|gitlab|bitbucket|gist):)?[^/:@\s]+\/([^/#\s]+?)(?:\.git)?(?:#.*)?$/;
const GIT_URL = /^(?:git\+)?(?:https?|ssh|git|file):\/\/[^#]*\/([^/#]+?)(?:\.git)?\/?(?:#.*)?$/;
const SCP = /^[^@/\s]+@[^:/\s]+\.[^:/\s]+:(?:[^#]*\/)?([^/#]+?)(?:\.git)?(?:#.*)?$/;
/** A path named as the package or one of its entry files, known without reading it. */
const NAMED_PATH = new RegExp(`(?:^|/)${PACKAGE_NAME}(?:/dist(?:/(?:index|tui)\\.js)?)?$`);

/** What `spec` leads to, or undefined when it cannot name a package (an invalid URL). */
function specTarget(spec: string, place: SpecPlace): SpecTarget | undefined {
  // OpenCode's own path specs (`isPathPluginSpec`, `resolvePluginSpec`).
  if (spec.startsWith("file://")) {
    try {
      return { paths: [fileURLToPath(spec)] };
    } catch {
      return undefined;
    }
  }
  if (spec.startsWith(".")) {
    // 1.18.33 resolves from the config file's folder; a later revision from the project folder when that is `.opencode`
    // (`config/plugin.ts` `resolvePluginSpec` at 0278bf4). Either way it is the user's entry.
    const folder = dirname(place.configFile);
    return {
      paths: (basename(folder) === ".opencode" ? [folder, dirname(folder)] : [folder]).map((base) =>
        resolve(base, spec),
      ),
    };
  }
  if (isAbsolute(spec) || /^[A-Za-z]:[\\/]/.test(spec)) return { paths: [spec] };
  // Everything else goes to npm (\`npm-package-arg\`).
  const home = (path: string) => join(place.home, path.slice(2));
  if (spec.startsWith("~/")) return { paths: [home(spec)] };
  if (spec.startsWith("file:")) {
    const path = spec.slice("file:".length);
    return { paths: [path.startsWith("~/") ? home(path) : resolve(place.directory, path)] };
  }
  const name = (ALIAS.exec(spec) ??
    TARBALL.exec(spec.replace(/[?#].*$/, "")) ??
    GIT_URL.exec(spec) ??
    SCP.exec(spec) ??
    NAMED.exec(spec) ??
    HOSTED.exec(spec))?.[1];
  return name ? { package: name } : undefined;
}

/**
 * The folders whose package.json says which package `path` is in, nearest
 * first: the path (a package's folder), its folder (a file at a package's
 * top, or a folder OpenCode opens at its index), and above a `dist` folder.
 */
function packageFolders(path: string): string[] {
  const parent = dirname(path);
  return basename(parent) === "dist" ? [path, parent, dirname(parent)] : [path, parent];
}

/** Whether `spec`, in a config file at `place`, names this package; `readPackage` reads a folder's package.json. */
export function isRulebookSpec(spec: string, place: SpecPlace, readPackage: ReadPackage): boolean {
  const target = specTarget(spec, place);
  if (!target) return false;
  if ("package" in target) return target.package === PACKAGE_NAME;
  return target.paths.some((path) => isRulebookPath(path.replace(/(?<=.)[\\/]+$/, ""), readPackage));
}

function isRulebookPath(path: string, readPackage: ReadPackage): boolean {
  if (NAMED_PATH.test(path.replace(/\\/g, "/"))) return true;
  for (const folder of packageFolders(path)) {
    const found = readPackage(folder);
    if (found !== undefined) return (found as { name?: unknown } | null)?.name === PACKAGE_NAME;
  }
  return false;
}
