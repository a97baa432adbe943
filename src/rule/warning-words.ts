/**
 * The words warnings.ts builds warning texts from: what each front matter key
 * should hold, what is done instead, and the small phrasings several texts
 * share. Pure.
 */
import { kindNamed, kindOfKey, type ConditionKey } from "../conditions/list.js";
import type { NowApplies } from "../conditions/lost.js";
import type { CheckedKey, DefaultedKey } from "./keys.js";
import { DEFAULT_PRIORITY } from "./rule.js";
import type { ReferenceReach } from "./trust.js";
import type { FoundValue } from "./warning-codes.js";

const BOOLEAN = "true or false";

/** What each of the reader's own keys' value should be; a condition kind's key says it itself. */
const EXPECTED: Record<Exclude<CheckedKey | DefaultedKey, ConditionKey>, string> = {
  enabled: BOOLEAN,
  alwaysApply: BOOLEAN,
  override: BOOLEAN,
  match: '"any" or "all"',
  priority: "a whole number from 1 to 100",
  description: "text",
};

const expectedOf = (key: CheckedKey | DefaultedKey): string =>
  kindOfKey(key)?.expected ?? EXPECTED[key as keyof typeof EXPECTED];

/** What is done instead when a defaulted key's value is wrong. */
export const INSTEAD: Record<DefaultedKey, string> = {
  priority: `default ${DEFAULT_PRIORITY} used`,
  override: "the rule does not override",
  description: "description ignored",
};

const NOW_APPLIES = {
  "by-other-conditions": "applies only by its other conditions",
  "on-request": "applies only on request",
  "when-mentioned": "applies only when mentioned",
};

/** What a rule applies by once a trigger is lost: `applies only by its keywords`. */
export function nowAppliesText(applies: NowApplies): string {
  if (typeof applies === "string") return NOW_APPLIES[applies];
  const kind = kindNamed(applies.onlyBy);
  const alone = kind?.role === "activates" ? kind.words.alone : undefined;
  return alone === undefined ? NOW_APPLIES["by-other-conditions"] : `applies only by ${alone}`;
}

/** A scope's key in words (`agent`, for `agents:`). */
export const scopeNoun = (key: string): string => {
  const kind = kindOfKey(key);
  return kind?.role === "narrows" ? kind.words.noun : key;
};

/**
 * How a key's patterns are called in a warning (`content`, `forbidden`),
 * what nothing does without them, and what ignoring the whole key means: a
 * condition kind's words (conditions/contract.ts), else what a rule forbids.
 */
export function patternWords(key: string): { noun: string; nothing: string; ignored: string } {
  const kind = kindOfKey(key);
  const words = kind?.role === "activates" ? kind.words.patterns : undefined;
  if (!words) return { noun: "forbidden", nothing: "nothing is forbidden", ignored: "it forbids nothing" };
  return { ...words, ignored: `${words.nothing} by it` };
}

export const WALKED = { folders: "folders", entries: "folder entries", files: "rule files" };

export const BOUNDARY: Record<ReferenceReach, string> = {
  repository: "the repository",
  user: "your rules and OpenCode config folders",
  managed: "the managed rules folder",
  pack: "its pack",
};

export const MENTIONED_ONLY = "the rule applies only when mentioned";

/** What is wrong with a closed front matter block that cannot be read. */
export const UNREAD: Partial<Record<string, (reason?: string) => string>> = {
  "yaml-invalid": (reason) => `front matter is not valid YAML (${reason})`,
  "front-matter-not-mapping": () => "front matter is not a list of `key: value` pairs",
  "front-matter-too-deep": () => "front matter is nested too deeply to read",
};

/** Names a warning lists before it counts the rest: a project may define many agents. */
const LISTED_NAMES = 12;

export const someNames = (names: readonly string[]) =>
  names.length > LISTED_NAMES
    ? `${names.slice(0, LISTED_NAMES).join(", ")} and ${names.length - LISTED_NAMES} more`
    : names.join(", ");

export function shown(found: FoundValue): string {
  return typeof found === "string"
    ? found === "nothing"
      ? found
      : `a ${found}`
    : `${found.type} ${found.json}`.slice(0, 60);
}

export const wrongType = (w: { key: CheckedKey | DefaultedKey; found: FoundValue }) =>
  `front matter key "${w.key}" should be ${expectedOf(w.key)}, found ${shown(w.found)}`;

export const orList = (items: readonly string[]) =>
  items.length > 1 ? `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}` : (items[0] ?? "");
