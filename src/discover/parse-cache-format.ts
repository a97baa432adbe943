/**
 * The parse cache file's text (pure): what parse-cache-file.ts writes and
 * reads back, and what a kept parse read back must look like before it stands
 * for a rule file. The file is the user's own, but may be cut short,
 * hand-edited or written by another build: an entry that does not fit is
 * dropped, and its rule file read again.
 *
 * The file is one line of JSON, the entries without their rules' texts,
 * then the texts one after another; an entry gives its text's length. Read
 * back, each text is a slice of the one string the texts decode to, not a
 * string of its own: a later start parses less JSON (no escaped text) and its
 * garbage collector copies less (one large string, not a thousand small ones).
 */
import { KINDS } from "../conditions/list.js";
import type { ParsedRule } from "../rule/parse.js";
import type { CachedParse, ParseCacheEntries } from "./parse-cache.js";

/**
 * Bumped when what an entry holds changes shape (2: a rule's conditions by kind, `conditions`; 3: the texts after the
 * entries, a rule's path not repeated).
 */
const FORMAT = 3;

/** What one file holds besides its entries: whose parses they are. */
interface CacheOwner {
  project: string;
  build: string;
}

const NEWLINE = 0x0a;

export function cacheText(entries: ParseCacheEntries, owner: CacheOwner): string {
  const texts: string[] = [];
  const listed: unknown[] = [];
  for (const [path, { stamp, context, parsed, digest }] of entries) {
    let kept: unknown = parsed;
    if (parsed.rule) {
      // The rule without its path (the entry's) and with its text's length in place of the text.
      const { path: _path, content, ...rest } = parsed.rule;
      texts.push(content);
      kept = { rule: { ...rest, content: content.length }, warnings: parsed.warnings };
    }
    listed.push(digest === undefined ? [path, stamp, context, kept] : [path, stamp, context, kept, digest]);
  }
  // JSON.stringify writes no raw newline: the first one ends the entries.
  return `${JSON.stringify({ format: FORMAT, ...owner, entries: listed })}\n${texts.join("")}`;
}

/**
 * The entries of a cache file's bytes; none when it is another project's, another build's or another format's, or its
 * texts do not add up.
 */
export function cacheEntries(bytes: Uint8Array, owner: CacheOwner): ParseCacheEntries {
  const entries = new Map<string, CachedParse>();
  const end = bytes.indexOf(NEWLINE);
  if (end === -1) return entries;
  // Decoded where they lie: a copy of a few megabytes would cost more than the decoding.
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const file = JSON.parse(buffer.toString("utf8", 0, end)) as {
    format?: unknown;
    build?: unknown;
    project?: unknown;
    entries?: unknown;
  } | null;
  if (
    file?.format !== FORMAT ||
    file.build !== owner.build ||
    file.project !== owner.project ||
    !Array.isArray(file.entries)
  )
    return entries;
  const texts = buffer.toString("utf8", end + 1);
  let at = 0;
  for (const item of file.entries) {
    if (!Array.isArray(item)) continue;
    const [path, stamp, context, parsed, digest] = item as unknown[];
    // A text's length is counted whatever else the entry holds, so the texts after it stay in place.
    const rule = (parsed as { rule?: Record<string, unknown> } | null)?.rule;
    const length = rule?.content;
    if (rule && typeof length === "number" && Number.isInteger(length) && length >= 0) {
      rule.content = texts.slice(at, at + length);
      rule.path = path;
      at += length;
    }
    if (
      typeof path !== "string" ||
      typeof stamp !== "string" ||
      typeof context !== "string" ||
      !validCachedParse(parsed, path)
    )
      continue;
    entries.set(path, typeof digest === "string" ? { stamp, context, parsed, digest } : { stamp, context, parsed });
  }
  // Texts that do not match their lengths (a file cut short or edited): nothing in it is trusted.
  if (at !== texts.length) entries.clear();
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

const KIND_BY_NAME = new Map(KINDS.map((kind) => [kind.kind as string, kind]));

/** Each kind's value as its kind reads it, and nothing the list does not have. */
function validConditions(conditions: unknown): boolean {
  if (!isObject(conditions)) return false;
  for (const name in conditions) {
    if (!Object.hasOwn(conditions, name) || KIND_BY_NAME.get(name)?.isValue(conditions[name]) !== true) return false;
  }
  return true;
}
