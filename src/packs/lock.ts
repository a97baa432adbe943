/**
 * The lock file: what every Git pack was pinned to (its commit, and a hash of
 * the rules it holds) and which version of every npm pack was read, keyed by
 * the spec as written. It is committed with the project, so its text is
 * stable (sorted, keys in a fixed order) and a damaged one is a clear error,
 * never a throw. Folder packs are never locked: they live in the repository.
 */
import type { PackSpec } from "./spec.js";

/** The lock's file name; the project's lives in `.opencode/` (the caller joins the paths). */
export const LOCK_FILE = "rulebook.lock";

interface LockedGit {
  kind: "git";
  url: string;
  ref?: string;
  subdir?: string;
  commit: string;
  hash: string;
}

interface LockedNpm {
  kind: "npm";
  name: string;
  version: string;
  hash: string;
}

export type LockedPack = LockedGit | LockedNpm;

export interface PackLock {
  lockfileVersion: 1;
  /** Keyed by the spec as written in the plugin's options. */
  packs: Record<string, LockedPack>;
}

const COMMIT = /^[0-9a-f]{40}$/;
const HASH = /^sha256-[0-9a-f]{64}$/;
/** Each kind's keys in the order the file lists them; `?` marks one that may be absent. */
const GIT_KEYS = ["kind", "url", "ref?", "subdir?", "commit", "hash"] as const;
const NPM_KEYS = ["kind", "name", "version", "hash"] as const;

type Read<T> = { value: T } | { error: string };

export function readLock(text: string): { lock: PackLock } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return {
      error: `the lock file is not JSON (${(error as Error).message}): run opencode-rulebook packs install to write it again`,
    };
  }
  if (!isObject(raw)) return { error: "the lock file does not hold a JSON object" };
  const extra = Object.keys(raw).find((key) => key !== "lockfileVersion" && key !== "packs");
  if (extra !== undefined)
    return { error: `the lock file has a key ${JSON.stringify(extra)} this version does not know` };
  if (raw.lockfileVersion !== 1) {
    const version = JSON.stringify(raw.lockfileVersion) ?? "missing";
    return {
      error: `the lock file's lockfileVersion is ${version}, and this version of opencode-rulebook reads version 1 only`,
    };
  }
  if (!isObject(raw.packs)) return { error: 'the lock file\'s "packs" is not an object of packs by spec' };
  const packs: [string, LockedPack][] = [];
  for (const [spec, entry] of Object.entries(raw.packs)) {
    const read = readEntry(entry);
    if ("error" in read) return { error: `the lock file's entry for ${JSON.stringify(spec)} ${read.error}` };
    packs.push([spec, read.value]);
  }
  // fromEntries defines own properties: a spec "__proto__" stays a key.
  return { lock: { lockfileVersion: 1, packs: Object.fromEntries(packs) } };
}

function readEntry(entry: unknown): Read<LockedPack> {
  if (!isObject(entry)) return { error: "is not an object" };
  if (entry.kind !== "git" && entry.kind !== "npm")
    return { error: `has kind ${JSON.stringify(entry.kind) ?? "missing"}, not "git" or "npm"` };
  const keys: readonly string[] = entry.kind === "git" ? GIT_KEYS : NPM_KEYS;
  const extra = Object.keys(entry).find((key) => !keys.includes(key) && !keys.includes(`${key}?`));
  if (extra !== undefined)
    return {
      error: `has a key ${JSON.stringify(extra)} ${entry.kind === "git" ? "a Git" : "an npm"} pack does not have`,
    };
  for (const key of keys) {
    const name = key.replace("?", "");
    const value = entry[name];
    if (value === undefined && key.endsWith("?")) continue;
    if (value === undefined) return { error: `has no ${name}` };
    if (typeof value !== "string" || value === "")
      return { error: `has ${name} ${JSON.stringify(value)}, not a non-empty string` };
  }
  if (entry.kind === "git" && !COMMIT.test(entry.commit as string))
    return { error: `has commit ${JSON.stringify(entry.commit)}, not a 40-hex commit` };
  if (!HASH.test(entry.hash as string))
    return { error: `has hash ${JSON.stringify(entry.hash)}, not sha256- and 64 hex digits` };
  return { value: entry as unknown as LockedPack };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The lock's text: packs sorted by spec, each entry's keys in a fixed order, 2-space JSON, a trailing newline. */
export function lockText(lock: PackLock): string {
  // sort() compares UTF-16 code units: the same order in every locale.
  const specs = Object.keys(lock.packs).sort();
  const packs = Object.fromEntries(specs.map((spec) => [spec, orderedEntry(lock.packs[spec] as LockedPack)]));
  return `${JSON.stringify({ lockfileVersion: lock.lockfileVersion, packs }, null, 2)}\n`;
}

function orderedEntry(entry: LockedPack): Record<string, string> {
  const keys: readonly string[] = entry.kind === "git" ? GIT_KEYS : NPM_KEYS;
  const values = entry as unknown as Record<string, string | undefined>;
  const ordered: [string, string][] = [];
  for (const key of keys) {
    const value = values[key.replace("?", "")];
    if (value !== undefined) ordered.push([key.replace("?", ""), value]);
  }
  return Object.fromEntries(ordered);
}

type LockDifference =
  | { kind: "no-lock" }
  /** A configured Git or npm pack with no entry. */
  | { kind: "unlocked"; spec: string }
  /** An entry for a spec no longer configured. */
  | { kind: "stale"; spec: string }
  /** An entry that does not describe its spec any more. */
  | { kind: "changed"; spec: string; what: "url" | "ref" | "subdir" | "kind" | "name" };

/** How the lock differs from the configured packs: configured packs in their order, then stale entries by spec. */
export function lockDifferences(packs: readonly PackSpec[], lock: PackLock | undefined): LockDifference[] {
  const locked = packs.filter((pack) => pack.kind !== "folder");
  if (!lock) return locked.length > 0 ? [{ kind: "no-lock" }] : [];
  const differences: LockDifference[] = [];
  const configured = new Set<string>();
  for (const pack of locked) {
    if (configured.has(pack.spec)) continue;
    configured.add(pack.spec);
    const entry = Object.hasOwn(lock.packs, pack.spec) ? lock.packs[pack.spec] : undefined;
    if (!entry) differences.push({ kind: "unlocked", spec: pack.spec });
    else {
      const what = changedPart(pack, entry);
      if (what) differences.push({ kind: "changed", spec: pack.spec, what });
    }
  }
  const stale = Object.keys(lock.packs).filter((spec) => !configured.has(spec));
  for (const spec of stale.sort()) differences.push({ kind: "stale", spec });
  return differences;
}

function changedPart(
  pack: PackSpec,
  entry: LockedPack,
): Extract<LockDifference, { kind: "changed" }>["what"] | undefined {
  if (pack.kind === "git" && entry.kind === "git") {
    if (pack.url !== entry.url) return "url";
    if (pack.ref !== entry.ref) return "ref";
    return pack.subdir !== entry.subdir ? "subdir" : undefined;
  }
  if (pack.kind === "npm" && entry.kind === "npm") return pack.name !== entry.name ? "name" : undefined;
  return "kind";
}

/** One sentence per difference, for `packs install --frozen`. */
export function differenceText(difference: LockDifference): string {
  const install = "run opencode-rulebook packs install and commit the lock file";
  switch (difference.kind) {
    case "no-lock":
      return `Packs are configured but there is no ${LOCK_FILE}: ${install}.`;
    case "unlocked":
      return `The pack ${JSON.stringify(difference.spec)} is not in ${LOCK_FILE}: ${install}.`;
    case "stale":
      return `${LOCK_FILE} pins ${JSON.stringify(difference.spec)}, which is no longer configured: ${install}.`;
    case "changed":
      return `${LOCK_FILE}'s entry for ${JSON.stringify(difference.spec)} no longer matches it (its ${difference.what} differs): ${install}.`;
  }
}
