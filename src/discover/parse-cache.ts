/**
 * Parsed rules kept between loads (and, through parse-cache-file.ts, between
 * starts): a rule file whose version (fs.ts `FileVersion`) and reading
 * context are those of a parse kept is neither read nor parsed again.
 *
 * What is kept is the file's own parse, before its references are read: an
 * included file is read at every load, as it may change without its rule
 * file changing. Pure: the caller says what time it is.
 */
import type { ParsedRule } from "../rule/parse.js";
import type { FoundRuleFile, RuleSource } from "./source.js";

export interface CachedParse {
  /** The file's version when it was read (`FileVersion.stamp`). */
  stamp: string;
  /** Everything else the parse depends on (`parseContext`). */
  context: string;
  parsed: ParsedRule;
  /**
   * The bytes' SHA-256 (hex), kept for a pack's files: a pack's hash is checked at every start without reading them
   * (packs/pack-hash.ts).
   */
  digest?: string;
}

/** Parses kept, by the rule file's path. */
export type ParseCacheEntries = ReadonlyMap<string, CachedParse>;

/**
 * A version changed this recently is not kept: a second write within the
 * file system's clock tick (up to 2 s on FAT, 1 s on some network file
 * systems) and of the same size would keep every part of its stamp.
 */
export const SETTLED_AFTER_MS = 3000;

/**
 * What a file's parse depends on besides its bytes: its source (which maps
 * its front matter and reads it strictly or not), the names and paths the
 * source gave it, whom it is trusted as, and the size limit.
 */
export function parseContext(source: RuleSource, file: FoundRuleFile, maxRuleBytes: number): string {
  // Joined by NUL, which no path or name holds: cheaper than JSON for a thousand files, and as unambiguous.
  return `${source.id}\0${source.tool ?? ""}\0${file.name}\0${file.scope}\0${file.source}\0${file.displayPath}\0${file.relPath}\0${file.trust}\0${maxRuleBytes}`;
}

/**
 * The entry kept for this file in this context, when the file has not changed since (and, when `digest`, it holds the
 * bytes' digest).
 */
export function cachedParse(
  entries: ParseCacheEntries,
  file: FoundRuleFile,
  context: string,
  digest = false,
): CachedParse | undefined {
  if (!file.version) return undefined;
  const kept = entries.get(file.path);
  return kept && kept.stamp === file.version.stamp && kept.context === context && (!digest || kept.digest !== undefined)
    ? kept
    : undefined;
}

/**
 * The entry to keep for a parse just made; none for a file without a version or changed too recently to trust its
 * stamp.
 */
export function entryFor(
  file: FoundRuleFile,
  context: string,
  parsed: ParsedRule,
  now: number,
  digest?: string,
): CachedParse | undefined {
  if (!file.version || now - file.version.changedAt < SETTLED_AFTER_MS) return undefined;
  return digest === undefined
    ? { stamp: file.version.stamp, context, parsed }
    : { stamp: file.version.stamp, context, parsed, digest };
}

/** Whether two sets of kept parses differ: only then is the set written again. */
export function parsesDiffer(before: ParseCacheEntries, after: ParseCacheEntries): boolean {
  if (before.size !== after.size) return true;
  for (const [path, entry] of after) {
    const was = before.get(path);
    if (!was || was.stamp !== entry.stamp || was.context !== entry.context || was.digest !== entry.digest) return true;
  }
  return false;
}
