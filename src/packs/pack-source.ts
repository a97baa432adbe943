/**
 * A pack's rules folder read as a rules folder of the plugin's own format
 * (every front matter key, `forbid` included), recursively. Read under the
 * pack's own boundary: the walk follows a symlink only to a target inside the
 * pack, and a rule's references resolve only inside it, whoever named it.
 */
import { addFolder, emptyFound, MARKDOWN_OR_MDC } from "../discover/found-rules.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";

/** Rules from packs are all the source `pack`: after every rules folder in precedence (formats/load.ts). */
export const PACK_SOURCE = "pack";

/** The source reading one pack's rules folder; the context's worktree is the pack's root (its boundary). */
export function packSource(rulesFolder: string): RuleSource {
  return {
    id: PACK_SOURCE,
    async find(context: SourceContext): Promise<FoundRules> {
      const found = emptyFound();
      // "repository": the walk's boundary is the context's real root, here the pack's.
      await addFolder(found, context, { folder: rulesFolder, scope: "project", source: PACK_SOURCE, accept: MARKDOWN_OR_MDC, trust: "repository" });
      return found;
    },
  };
}
