/**
 * A configured pack pinned as it is installed now: a Git pack fetched and
 * checked out at a commit (the lock's, or what its ref names now), an npm
 * pack as npm installed it, each with the hash of the rules it holds, read
 * with the plugin's own loader so the plugin's check at start agrees.
 */
import { rm } from "node:fs/promises";
import type { DiscoveryContext } from "../discover/discover.js";
import type { ConfiguredPack } from "../packs/configured.js";
import { gitCheckoutFolder } from "../packs/git-cache.js";
import { resolvePack } from "../packs/installed.js";
import { readPack } from "../packs/pack-rules.js";
import type { LockedPack, PackLock } from "../packs/lock.js";
import type { GitPackSpec, PackSpec } from "../packs/spec.js";
import { packProblemText } from "../rule/pack-problems.js";
import type { Rule } from "../rule/rule.js";
import { ensureGitCheckout, type GitRun, resolveGitRef } from "./pack-git.js";

export interface PinDeps {
  git: GitRun;
  discovery: DiscoveryContext;
  /** The repository's real root: a folder pack it names must lie inside. */
  realRoot: string;
}

export interface Pinned {
  entry: LockedPack;
  label: string;
  rules: Rule[];
}

/**
 * `commit`: the one the lock pins (install); absent, the commit the ref names now (update, or a pack new to the lock).
 */
export async function pinPack(
  configured: ConfiguredPack,
  spec: Exclude<PackSpec, { kind: "folder" }>,
  deps: PinDeps,
  commit?: string,
): Promise<Pinned | { error: string }> {
  if (spec.kind === "npm") return readPinned(configured, spec, undefined, deps);
  const target = commit ?? (await resolveGitRef(spec, configured.place.gitCache, deps.git));
  const at = typeof target === "string" ? target : "error" in target ? undefined : target.commit;
  if (at === undefined) return { error: (target as { error: string }).error };
  const checkout = await ensureGitCheckout(spec, at, configured.place.gitCache, deps.git);
  if ("error" in checkout) return checkout;
  const entry = {
    kind: "git" as const,
    url: spec.url,
    ...(spec.ref ? { ref: spec.ref } : {}),
    ...(spec.subdir ? { subdir: spec.subdir } : {}),
    commit: at,
    hash: "",
  };
  return readPinned(configured, spec, { lockfileVersion: 1, packs: { [configured.spec]: entry } }, deps);
}

/** A checkout whose files no longer hash as the lock says is made again from the commit (someone edited the cache). */
export async function checkoutAgain(spec: GitPackSpec, configured: ConfiguredPack, commit: string): Promise<void> {
  await rm(gitCheckoutFolder(configured.place.gitCache, spec.url, commit), { recursive: true, force: true });
}

async function readPinned(
  configured: ConfiguredPack,
  spec: PackSpec,
  lock: PackLock | undefined,
  deps: PinDeps,
): Promise<Pinned | { error: string }> {
  const resolution = await resolvePack(configured, spec, lock, deps.discovery.fs, {
    home: deps.discovery.home,
    realRoot: deps.realRoot,
  });
  if ("problem" in resolution)
    return { error: `pack ${configured.spec} ${packProblemText(resolution.problem, configured.place.owner)}` };
  const { installed } = resolution;
  const { discovery, hash } = await readPack(deps.discovery, installed);
  const locked = lock?.packs[configured.spec];
  const entry: LockedPack =
    installed.spec.kind === "npm"
      ? { kind: "npm", name: installed.spec.name, version: installed.version ?? "0.0.0", hash }
      : { ...(locked as LockedPack), hash };
  return { entry, label: installed.label, rules: discovery.rules };
}
