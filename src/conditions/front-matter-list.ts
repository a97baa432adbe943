/**
 * Lists as users write them in front matter (globs, keywords, agent names):
 * a YAML list, one string, or Cursor's comma-separated string. Every kind
 * that reads names, and every format's mapper, reads them here. Pure.
 */
import type { ConditionProblem, FrontMatterData, ReadValue } from "./contract.js";

/**
 * The items of a list value; commas inside `{a,b}` braces belong to the
 * glob. Undefined when the value cannot be read as such a list.
 */
export function readList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return splitList(value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.flatMap((item: string) => splitList(item));
  }
  return undefined;
}

/**
 * Names under `keys`, one list: a key that cannot be read as a list is a
 * problem that skips the rule (a rule for `plan` whose list cannot be read
 * must not reach every agent); with `emptyNamesNone`, a key given that names
 * none is a problem too.
 */
export function readNames(
  data: FrontMatterData,
  keys: readonly string[],
  emptyNamesNone: boolean,
): ReadValue<readonly string[]> {
  const names: string[] = [];
  const problems: ConditionProblem[] = [];
  for (const key of keys) {
    const read = readList(data[key]);
    if (read === undefined) return { problems: [{ code: "unreadable", key }] };
    if (read.length > 0) names.push(...read);
    else if (emptyNamesNone && key in data) problems.push({ code: "names-none", key });
  }
  return names.length > 0 ? { value: names, problems } : { problems };
}

/** A list of names as `readNames` gives it: not empty, each a string (a cached value must be). */
export const isNameList = (value: unknown): boolean =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string");

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
