/**
 * Front matter keys: the ones the common reader (parse.ts) understands, where
 * a key is in the file, and list values as users write them, which every
 * format's mapper reads too.
 */

/** Keys the common reader understands, with the aliases users bring from other tools. */
export const GLOB_KEYS = ["globs", "paths", "applyTo", "fileMatchPattern"] as const;
export const KEYWORD_KEYS = ["keywords", "topics"] as const;
/** Keys that narrow a rule to agents and models (select/scope.ts). */
export const SCOPE_KEYS = ["agents", "models"] as const;

/** Keys that make a rule hold (rule/enforcement.ts): patterns it forbids, and what breaking one meets. */
export const FORBID_KEYS = ["forbid", "forbidCommands"] as const;
export const ENFORCEMENT_KEYS = [...FORBID_KEYS, "enforce"] as const;
export type ForbidKey = (typeof FORBID_KEYS)[number];
/**
 * Keys whose patterns a file's content must hold for the rule to apply
 * (select/content.ts): `fileContains` in the plugin's syntax, and Continue's
 * `regex`, each item a regular expression's body.
 */
export const CONTENT_KEYS = ["fileContains", "regex"] as const;
export type ContentKey = (typeof CONTENT_KEYS)[number];
/** Keys holding patterns (rule/pattern-list.ts). */
export type PatternKey = ForbidKey | ContentKey;
export type EnforcementKey = (typeof ENFORCEMENT_KEYS)[number];

/** Front matter keys the common reader checks the type of. */
export type CheckedKey =
  | "enabled"
  | "alwaysApply"
  | "match"
  | (typeof GLOB_KEYS)[number]
  | (typeof KEYWORD_KEYS)[number]
  | (typeof SCOPE_KEYS)[number];
/** Keys whose bad value is dropped for a default: the rule still loads. */
export type DefaultedKey = "priority" | "override" | "description";

/**
 * Globs or keywords as users write them: a YAML list, one string, or Cursor's
 * comma-separated string. Commas inside `{a,b}` braces belong to the glob.
 * Returns undefined when the value cannot be read as such a list.
 */
export function readList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return splitList(value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.flatMap((item: string) => splitList(item));
  }
  return undefined;
}

function splitList(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === OPEN_BRACE) depth++;
    else if (char === CLOSE_BRACE) depth = Math.max(0, depth - 1);
    else if (char === COMMA && depth === 0) {
      addItem(items, text.slice(start, i));
      start = i + 1;
    }
  }
  addItem(items, text.slice(start));
  return items;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;

/** An item trimmed, without one quote mark at either end; an empty one is dropped. */
function addItem(items: string[], raw: string): void {
  const item = raw.trim();
  let start = 0;
  let end = item.length;
  if (end > 0 && isQuote(item[0])) start = 1;
  if (end > start && isQuote(item[end - 1])) end--;
  if (end > start) items.push(start === 0 && end === item.length ? item : item.slice(start, end));
}

const isQuote = (char: string | undefined) => char === '"' || char === "'";

/** 1-based line of a top-level front matter key, for warnings. */
export function keyLine(text: string, key: string): number | undefined {
  const index = text.split("\n").findIndex((line) => line.startsWith(`${key}:`));
  return index >= 0 ? index + 1 : undefined;
}

/**
 * 1-based lines of a list key's items, for warnings: each item's text looked
 * for in the key's block (its line, then the indented or `- ` lines below),
 * from the line after the previous item's. The key's line when an item is not
 * found as written (a quoted item with escapes), undefined without the key.
 */
export function itemLines(text: string, key: string, items: readonly unknown[]): (number | undefined)[] {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`${key}:`));
  if (start < 0) return items.map(() => undefined);
  let end = start + 1;
  while (end < lines.length && /^(\s|-(?!--))/.test(lines[end]!)) end++;
  let from = start;
  return items.map((item) => {
    const written =
      typeof item === "string" || typeof item === "number" || typeof item === "boolean" ? String(item) : "";
    if (written === "") return start + 1;
    for (let i = from; i < end; i++) {
      // On the key's own line, after the key: `forbid: x` or `forbid: [x, y]`.
      if (!lines[i]!.includes(written, i === start ? key.length + 1 : 0)) continue;
      from = i === start ? start : i + 1;
      return i + 1;
    }
    return start + 1;
  });
}
