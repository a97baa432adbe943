/**
 * The parse cache file's text (pure): what parse-cache-file.ts writes and
 * reads back, and what a kept parse read back must look like before it stands
 * for a rule file. The file is the user's own, but may be cut short,
 * hand-edited or written by another build: an entry that does not fit is
 * dropped, and its rule file read again.
 *
 * Each entry holds its rule's text in place. (Measured: keeping the texts
 * apart in one string, each rule's a slice of it, made a start slower.)
 */
import { KINDS } from "../conditions/list.js";
import type { ParsedRule } from "../rule/parse.js";
import type { CachedParse, ParseCacheEntries } from "./parse-cache.js";

/** Bumped when what an entry holds changes shape (2: a rule's conditions by kind, `conditions`). */
const FORMAT = 2;

/** What one file holds besides its entries: whose parses they are. */
interface CacheOwner {
  project: string;
  build: string;
}

export function cacheText(entries: ParseCacheEntries, owner: CacheOwner): string {
  return JSON.stringify({
    format: FORMAT,
    ...owner,
    entries: [...entries].map(([path, { stamp, context, parsed, digest }]) =>
      digest === undefined ? [path, stamp, context, parsed] : [path, stamp, context, parsed, digest],
    ),
  });
}

/**
 * The entries of a cache file's parsed text; none when it is another project's, another build's or another format's.
 */
export function cacheEntries(data: unknown, owner: CacheOwner): ParseCacheEntries {
  const file = data as { format?: unknown; build?: unknown; project?: unknown; entries?: unknown };
  const entries = new Map<string, CachedParse>();
  if (
    file?.format !== FORMAT ||
    file.build !== owner.build ||
    file.project !== owner.project ||
    !Array.isArray(file.entries)
  )
    return entries;
  for (const item of file.entries) {
    if (!Array.isArray(item)) continue;
    const [path, stamp, context, parsed, digest] = item as unknown[];
    if (
      typeof path !== "string" ||
      typeof stamp !== "string" ||
      typeof context !== "string" ||
      !validCachedParse(parsed, path)
    )
      continue;
    entries.set(path, typeof digest === "string" ? { stamp, context, parsed, digest } : { stamp, context, parsed });
  }
  return entries;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const strings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string");

function validCachedParse(parsed: unknown, path: string): parsed is ParsedRule {
  if (!isObject(parsed) || !Array.isArray(parsed.warnings)) return false;
  if (
    !parsed.warnings.every(
      (warning) => isObject(warning) && typeof warning.path === "string" && typeof warning.code === "string",
    )
  )
    return false;
  const rule = parsed.rule;
  if (rule === undefined) return true;
  return (
    isObject(rule) &&
    rule.path === path &&
    typeof rule.name === "string" &&
    typeof rule.content === "string" &&
    typeof rule.displayPath === "string" &&
    typeof rule.source === "string" &&
    (rule.scope === "global" || rule.scope === "project") &&
    (rule.match === "any" || rule.match === "all") &&
    typeof rule.priority === "number" &&
    typeof rule.override === "boolean" &&
    strings(rule.unknownKeys) &&
    validConditions(rule.conditions)
  );
}

/** Each kind's value as its kind reads it, and nothing the list does not have. */
function validConditions(conditions: unknown): boolean {
  if (!isObject(conditions)) return false;
  return Object.entries(conditions).every(
    ([name, value]) => KINDS.find((known) => known.kind === name)?.isValue(value) === true,
  );
}
