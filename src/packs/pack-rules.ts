/**
 * One pack's rules and the hash of what it holds: its rules folder read like
 * a rules folder of the plugin's own format, confined to the pack
 * (`pack-source.ts`). The plugin checks the hash at every start, and
 * `packs install` writes it to the lock: the same reading, the same hash.
 */
import { relative, sep } from "node:path";
import { type Discovery, type DiscoveryContext, digestOf, discoverRules } from "../discover/discover.js";
import { readRegularFile } from "../discover/fs.js";
import type { RulePack } from "../rule/rule.js";
import type { InstalledPack } from "./installed.js";
import { packHash } from "./pack-hash.js";
import { packSource } from "./pack-source.js";

export async function readPack(
  context: DiscoveryContext,
  installed: InstalledPack,
): Promise<{ discovery: Discovery; hash: string }> {
  const realRoot = await context.fs.realpath(installed.root).catch(() => installed.root);
  const packContext: DiscoveryContext = {
    ...context,
    directory: installed.root,
    worktree: installed.root,
    realRoot,
    extraDirs: [],
    userExtraDirs: [],
    digests: true,
    confined: true,
  };
  const pin = installed.commit ? { commit: installed.commit } : installed.version ? { version: installed.version } : {};
  const pack: RulePack = { spec: installed.configured.spec, label: installed.label, ...pin };
  const source = packSource({
    rulesFolder: installed.rulesFolder,
    owner: installed.configured.place.owner,
    pack,
    inPack: inPack(installed.root, installed.rulesFolder),
  });
  const discovery = await discoverRules(packContext, [source]);
  const hashed = discovery.files.map((file) => ({
    path: inPack(installed.root, file.path),
    digest: discovery.digests.get(file.path),
  }));
  // What the rules include is part of what they say: read again here, as every load reads it.
  for (const path of discovery.references) {
    const bytes = await readRegularFile(context.fs, path, context.maxRuleBytes).catch(() => undefined);
    hashed.push({ path: inPack(realRoot, path), digest: bytes && digestOf(bytes) });
  }
  return { discovery, hash: packHash(hashed) };
}

/** A path inside the pack, POSIX ("" for the pack itself); by slicing, as it is done for every file at every start. */
function inPack(root: string, path: string): string {
  if (path === root) return "";
  const rel = path.startsWith(`${root}${sep}`) ? path.slice(root.length + 1) : relative(root, path);
  return sep === "/" ? rel : rel.split(sep).join("/");
}
