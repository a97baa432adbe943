/**
 * Front matter keys: the ones the common reader (parse.ts) understands
 * besides the condition kinds' (conditions/list.ts), and where a key is in
 * the file, for warnings.
 */
import type { ConditionKey } from "../conditions/list.js";

/** Keys that make a rule hold (rule/enforcement.ts): patterns it forbids, and what breaking one meets. */
const FORBID_KEYS = ["forbid", "forbidCommands"] as const;
export const ENFORCEMENT_KEYS = [...FORBID_KEYS, "enforce"] as const;
export type ForbidKey = (typeof FORBID_KEYS)[number];
export type EnforcementKey = (typeof ENFORCEMENT_KEYS)[number];

/** Front matter keys the common reader checks the type of: its own, and the condition kinds' (conditions/list.ts). */
export type CheckedKey = "enabled" | "alwaysApply" | "match" | ConditionKey;
/** Keys whose bad value is dropped for a default: the rule still loads. */
export type DefaultedKey = "priority" | "override" | "description";

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
