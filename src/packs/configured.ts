/**
 * A pack as configured, and where its owner keeps what pins and holds it.
 * Plain data: the options layer reads OpenCode's config files and says which
 * packs each owner names (pack-config.ts); discovery only reads them.
 */
import type { Trust } from "../rule/trust.js";

/** Where one owner's packs are pinned and kept. */
export interface PackPlace {
  /** Who named the pack: the repository's config, the user's own, or the administrator's `rulebook.json`. */
  owner: Trust;
  /** The config file naming the pack: a folder pack's path is relative to its folder. */
  configFile: string;
  /** The owner's `rulebook.lock`. */
  lockFile: string;
  /** Where Git packs are checked out, one folder per commit (`packs install` fills it). */
  gitCache: string;
  /**
   * Folders an npm pack is looked up from as Node resolves a package (each and its parents' `node_modules`), in order.
   */
  npmFrom: readonly string[];
}

export interface ConfiguredPack {
  /** As written in the config. */
  spec: string;
  place: PackPlace;
}
