/**
 * The folders the pack-loading tests (test/packs/load-packs*.test.ts) load
 * packs in: a home, a project, a folder outside both, the Git pack cache and
 * the managed rules folder, made again before each test (`makePackBox`) and
 * removed after it (`removePackBox`); and a pack configured, locked and
 * loaded there.
 */
import { join } from "node:path";
import { DEFAULT_MAX_RULE_BYTES, type DiscoveryContext } from "../../src/discover/discover.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { loadRules } from "../../src/formats/load.js";
import type { ConfiguredPack, PackPlace } from "../../src/packs/configured.js";
import { resolvePack } from "../../src/packs/installed.js";
import { readPack } from "../../src/packs/pack-rules.js";
import { lockText, type PackLock } from "../../src/packs/lock.js";
import { parsePackSpec } from "../../src/packs/spec.js";
import { warningText } from "../../src/rule/warnings.js";
import { tempDirs, writeTree } from "./temp-folder.js";

const dirs = tempDirs();
export const box = { home: "", project: "", outside: "", cache: "", managed: "" };

export async function makePackBox(): Promise<void> {
  box.home = await dirs.make("rulebook-home-");
  box.project = await dirs.make("rulebook-project-");
  box.outside = await dirs.make("rulebook-outside-");
  box.cache = join(box.home, ".cache", "opencode", "rulebook", "packs");
  box.managed = join(await dirs.make("rulebook-managed-"), "rules");
}

export const removePackBox = () => dirs.cleanup();

export const context = (over: Partial<DiscoveryContext> = {}): DiscoveryContext => ({
  env: { OPENCODE_RULEBOOK_MANAGED_DIR: box.managed },
  home: box.home,
  directory: box.project,
  worktree: box.project,
  fs: nodeRuleFs,
  maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
  ...over,
});

export const place = (owner: PackPlace["owner"], over: Partial<PackPlace> = {}): PackPlace => ({
  owner,
  configFile:
    owner === "repository"
      ? join(box.project, "opencode.json")
      : join(box.home, ".config", "opencode", "opencode.json"),
  lockFile:
    owner === "repository"
      ? join(box.project, ".opencode", "rulebook.lock")
      : join(box.home, ".config", "opencode", "rulebook.lock"),
  gitCache: box.cache,
  npmFrom: [owner === "repository" ? box.project : join(box.home, ".config", "opencode")],
  ...over,
});

export const pack = (
  spec: string,
  owner: PackPlace["owner"] = "repository",
  over: Partial<PackPlace> = {},
): ConfiguredPack => ({ spec, place: place(owner, over) });

export const load = (packs: ConfiguredPack[], over: Partial<DiscoveryContext> = {}, sources?: string[]) =>
  loadRules(context(over), { packs, sources });
export const texts = (loaded: { warnings: Parameters<typeof warningText>[0][] }) => loaded.warnings.map(warningText);

/** The hash `packs install` would write for the pack `configured` resolves to. */
export async function hashOf(configured: ConfiguredPack, lock?: PackLock): Promise<string> {
  const parsed = parsePackSpec(configured.spec);
  if ("error" in parsed) throw new Error(parsed.error);
  const resolution = await resolvePack(configured, parsed.pack, lock, nodeRuleFs, {
    home: box.home,
    realRoot: box.project,
  });
  if ("problem" in resolution) throw new Error(JSON.stringify(resolution.problem));
  return (await readPack(context(), resolution.installed)).hash;
}

export async function writeLock(file: string, lock: PackLock) {
  await writeTree("/", { [file]: lockText(lock) });
}

/** `@acme/rules` recorded in its owner's lock at `version`, with the hash of what it holds now (or `hash`); the hash. */
export async function lockNpm(configured: ConfiguredPack, version = "2.1.0", hash?: string): Promise<string> {
  const pinned = hash ?? (await hashOf(configured));
  await writeLock(configured.place.lockFile, {
    lockfileVersion: 1,
    packs: { "@acme/rules": { kind: "npm", name: "@acme/rules", version, hash: pinned } },
  });
  return pinned;
}

export const NPM = {
  "node_modules/@acme/rules/package.json": JSON.stringify({
    name: "@acme/rules",
    version: "2.1.0",
    "opencode-rulebook": { rules: "team" },
  }),
};
