/**
 * The look-ups of a running plugin (discover/look-up.ts): one per rule file
 * name a source it reads finds by looking up from touched files (Gemini CLI's
 * `GEMINI.md`). Discovery reads the folders they found through
 * `SourceContext.lookedUp`.
 */
import type { DiscoveryContext } from "../discover/discover.js";
import { type LOOK_UP_LIMITS, lookUp, type LookUp } from "../discover/look-up.js";
import { projectRootOf, realRootOf } from "../discover/project.js";
import type { RuleSource } from "../discover/source.js";

interface SourceLookUps {
  /** Looks up from each absolute path; true when a folder holding one of the files was found. */
  from(paths: readonly string[]): Promise<boolean>;
  /** The folders found so far holding `fileName`. */
  folders(fileName: string): readonly string[];
  /** Whether any source looks up: none, and touched files cost nothing. */
  any: boolean;
}

export function sourceLookUps(
  context: DiscoveryContext,
  sources: readonly RuleSource[],
  limits?: Partial<typeof LOOK_UP_LIMITS>,
): SourceLookUps {
  const names = new Set(sources.flatMap((source) => (source.lookedUp ? [source.lookedUp] : [])));
  const root = projectRootOf(context);
  const realRoot = realRootOf(context);
  const byName = new Map<string, LookUp>(
    [...names].map((fileName) => [
      fileName,
      lookUp({ fs: context.fs, root, realRoot, below: context.directory, fileName, now: context.now, limits }),
    ]),
  );
  return {
    any: byName.size > 0,
    async from(paths) {
      if (paths.length === 0) return false;
      const found = await Promise.all([...byName.values()].map((each) => each.from(paths)));
      return found.includes(true);
    },
    folders: (fileName) => byName.get(fileName)?.folders() ?? [],
  };
}
