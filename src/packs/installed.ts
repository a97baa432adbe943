/**
 * Where a configured pack is installed, read without touching the network:
 * an npm pack in `node_modules` (as Node resolves it), a Git pack in the cache
 * at the commit its lock pins, a folder where the config says. A pack that is
 * not there, or not as the lock pins it, is a typed problem: the caller warns
 * and goes on without it.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { errorCode, errorReason, readRegularFile, type RuleFs } from "../discover/fs.js";
import type { PackProblem } from "../rule/pack-problems.js";
import { inside } from "../rule/trust.js";
import type { ConfiguredPack } from "./configured.js";
import { gitCheckoutFolder } from "./git-cache.js";
import type { LockedPack, PackLock } from "./lock.js";
import { packLabel, type PackSpec } from "./spec.js";

export interface InstalledPack {
  configured: ConfiguredPack;
  spec: PackSpec;
  /** The pack's folder: its boundary. */
  root: string;
  /** Its rules folder, inside `root`. */
  rulesFolder: string;
  label: string;
  version?: string;
  commit?: string;
  description?: string;
  /** What the lock says of it; absent for a folder pack, or an npm pack not recorded yet. */
  locked?: LockedPack;
}

type PackResolution = { installed: InstalledPack } | { problem: PackProblem };

/** A version as semver writes one (`2.1.0`, `1.0.0-rc.1+build`); anything else is not taken as the pack's version. */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is replaced
const UNSEEN = /[\u0000-\u001f\u007f-\u009f]/g;
/** A description is one line in `packs list`. */
const MAX_DESCRIPTION = 200;

/** How much of a package.json is read: more is not a pack's manifest. */
const PACKAGE_JSON_BYTES = 256 * 1024;

interface Manifest {
  name?: string;
  version?: string;
  description?: string;
  rules?: string;
}

/**
 * Where the pack `spec` (the configured spec, parsed) is, with its lock entry checked; `realRoot` is the repository's,
 * which a folder pack it names must lie inside.
 */
export async function resolvePack(
  configured: ConfiguredPack,
  spec: PackSpec,
  lock: PackLock | undefined,
  fs: RuleFs,
  context: { home: string; realRoot: string },
): Promise<PackResolution> {
  const locked = lock && Object.hasOwn(lock.packs, configured.spec) ? lock.packs[configured.spec] : undefined;
  if (spec.kind === "git") {
    if (!locked) return { problem: { kind: "not-locked" } };
    if (locked.kind !== "git" || locked.url !== spec.url || locked.ref !== spec.ref || locked.subdir !== spec.subdir) {
      return {
        problem: {
          kind: "lock-differs",
          what: locked.kind !== "git" ? "it is locked as an npm pack" : "its URL, ref or sub-folder changed",
        },
      };
    }
    const checkout = gitCheckoutFolder(configured.place.gitCache, spec.url, locked.commit);
    const root = spec.subdir ? join(checkout, ...spec.subdir.split("/")) : checkout;
    if (!(await isFolder(fs, checkout))) return { problem: { kind: "not-installed", where: checkout } };
    return withManifest(configured, spec, root, { commit: locked.commit, locked }, fs);
  }
  if (spec.kind === "folder") {
    const root = folderOf(spec.path, configured.place.configFile, context.home);
    if (!(await isFolder(fs, root))) return { problem: { kind: "not-installed", where: root } };
    if (configured.place.owner === "repository") {
      const real = await fs.realpath(root).catch(() => root);
      if (!inside(real, [context.realRoot])) return { problem: { kind: "outside-repository", realPath: real } };
    }
    return withManifest(configured, spec, root, {}, fs);
  }
  const found = await npmPackage(spec.name, configured.place.npmFrom, fs);
  if (!found)
    return {
      problem: {
        kind: "not-installed",
        where: `node_modules/${spec.name} from ${configured.place.npmFrom.join(", ")}`,
      },
    };
  if (locked && (locked.kind !== "npm" || locked.name !== spec.name))
    return { problem: { kind: "lock-differs", what: "it is locked as another pack" } };
  return withManifest(configured, spec, found, locked ? { locked } : {}, fs);
}

/** A folder pack's folder: relative to its config file's folder, `~/` the home folder. */
function folderOf(path: string, configFile: string, home: string): string {
  if (path === "~" || path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(dirname(configFile), path);
}

/** Node's lookup of a package: `node_modules/<name>` in each folder and its parents, the first `from` first. */
async function npmPackage(name: string, from: readonly string[], fs: RuleFs): Promise<string | undefined> {
  for (const start of from) {
    for (let folder = start; ; folder = dirname(folder)) {
      const candidate = join(folder, "node_modules", ...name.split("/"));
      if (await isFolder(fs, candidate)) return candidate;
      if (dirname(folder) === folder) break;
    }
  }
  return undefined;
}

async function withManifest(
  configured: ConfiguredPack,
  spec: PackSpec,
  root: string,
  pin: { commit?: string; locked?: LockedPack },
  fs: RuleFs,
): Promise<PackResolution> {
  const manifest = await readManifest(join(root, "package.json"), fs);
  if ("problem" in manifest) return manifest;
  const version = manifest.version;
  if (spec.kind === "npm" && pin.locked?.kind === "npm" && version !== pin.locked.version) {
    return { problem: { kind: "version-differs", locked: pin.locked.version, found: version ?? "no version" } };
  }
  // With a package.json: its `opencode-rulebook.rules`, else `rules/`. Without: `rules/` when there is one, else the
  // folder itself (`../platform/rules`).
  const rulesFolder =
    manifest.rules !== undefined
      ? resolve(root, manifest.rules)
      : manifest.found || (await isFolder(fs, join(root, "rules")))
        ? join(root, "rules")
        : root;
  const realRoot = await fs.realpath(root).catch(() => root);
  const realRules = await fs.realpath(rulesFolder).catch(() => undefined);
  if (realRules === undefined || !(await isFolder(fs, rulesFolder)))
    return { problem: { kind: "no-rules-folder", folder: rulesFolder } };
  if (!inside(realRules, [realRoot])) return { problem: { kind: "rules-outside-pack", realPath: realRules } };
  const pinned = spec.kind === "git" ? { commit: pin.commit } : { version };
  const installed: InstalledPack = { configured, spec, root, rulesFolder, label: packLabel(spec, pinned) };
  if (version !== undefined) installed.version = version;
  if (pin.commit !== undefined) installed.commit = pin.commit;
  if (manifest.description !== undefined) installed.description = manifest.description;
  if (pin.locked) installed.locked = pin.locked;
  return { installed };
}

/** A pack's package.json: its name, version, description and rules folder; none is fine, a damaged one is a problem. */
async function readManifest(
  path: string,
  fs: RuleFs,
): Promise<({ found: boolean } & Manifest) | { problem: PackProblem }> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(fs, path, PACKAGE_JSON_BYTES);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { found: false };
    return { problem: { kind: "unreadable", reason: `${path}: ${errorReason(error)}` } };
  }
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    return { problem: { kind: "unreadable", reason: `${path} is not JSON (${errorReason(error)})` } };
  }
  const json = (data ?? {}) as Record<string, unknown>;
  const own = json["opencode-rulebook"] as { rules?: unknown } | undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const manifest: { found: boolean } & Manifest = { found: true };
  for (const [key, value] of [
    ["name", text(json.name)],
    // The version names the pack in every rules message (`@acme/rules@2.1.0/…`): only a version's characters, so a
    // package cannot write into one.
    ["version", text(json.version)?.match(VERSION)?.[0]],
    ["description", text(json.description)?.replace(UNSEEN, " ").slice(0, MAX_DESCRIPTION)],
    ["rules", text(own?.rules)],
  ] as const) {
    if (value !== undefined) manifest[key] = value;
  }
  return manifest;
}

async function isFolder(fs: RuleFs, path: string): Promise<boolean> {
  return fs.stat(path).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}
