/**
 * A pack's rules folder read as a rules folder of the plugin's own format
 * (every front matter key, `forbid` included), recursively, each rule born
 * as its owner's and its pack's. Read confined to the pack (the context's
 * real root): the walk follows a symlink only to a target inside the pack,
 * and a rule's references resolve only inside it, whoever named it.
 */
import { addFolder, emptyFound, MARKDOWN_OR_MDC } from "../discover/found-rules.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";
import type { RulePack } from "../rule/rule.js";
import type { Trust } from "../rule/trust.js";

/**
 * Rules from packs are all the source `pack`: after every rules folder of their scope in precedence (formats/load.ts).
 */
const PACK_SOURCE = "pack";

/**
 * What the source needs of an installed pack: its rules folder, whose it is, and how its files are named
 * (`label/path in the pack`).
 */
interface PackFolder {
  rulesFolder: string;
  owner: Trust;
  pack: RulePack;
  /** The rules folder's path in the pack, POSIX (`rules`; empty when the pack is its own rules folder). */
  inPack: string;
}

export function packSource(folder: PackFolder): RuleSource {
  return {
    id: PACK_SOURCE,
    async find(context: SourceContext): Promise<FoundRules> {
      const found = emptyFound();
      const displayPrefix = folder.inPack ? `${folder.pack.label}/${folder.inPack}` : folder.pack.label;
      await addFolder(found, context, {
        folder: folder.rulesFolder,
        scope: folder.owner === "repository" ? "project" : "global",
        source: PACK_SOURCE,
        accept: MARKDOWN_OR_MDC,
        trust: folder.owner,
        pack: { pack: folder.pack, displayPrefix },
      });
      return found;
    },
  };
}
