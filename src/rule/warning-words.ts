/**
 * The words warnings.ts builds warning texts from: what each front matter key
 * should hold, what is done instead, and the small phrasings several texts
 * share. Pure.
 */
import type { CheckedKey, DefaultedKey } from "./keys.js";
import { DEFAULT_PRIORITY } from "./rule.js";
import type { ReferenceReach } from "./trust.js";
import type { FoundValue } from "./warning-codes.js";

const BOOLEAN = "true or false";
const GLOBS = "a glob, a comma-separated list of globs, or a YAML list of globs";
const WORDS = "a word, a comma-separated list of words, or a YAML list of words";

/** What each key's value should be. */
const EXPECTED: Record<CheckedKey | DefaultedKey, string> = {
  enabled: BOOLEAN,
  alwaysApply: BOOLEAN,
  override: BOOLEAN,
  globs: GLOBS,
  paths: GLOBS,
  applyTo: GLOBS,
  fileMatchPattern: GLOBS,
  keywords: WORDS,
  topics: WORDS,
  agents: "an agent name, a comma-separated list of agent names, or a YAML list of them",
  models: 'a provider/model pattern such as "anthropic/*", a comma-separated list of them, or a YAML list of them',
  match: '"any" or "all"',
  priority: "a whole number from 1 to 100",
  description: "text",
};

/** What is done instead when a defaulted key's value is wrong. */
export const INSTEAD: Record<DefaultedKey, string> = {
  priority: `default ${DEFAULT_PRIORITY} used`,
  override: "the rule does not override",
  description: "description ignored",
};

export const NOW_APPLIES = {
  "by-keywords": "applies only by its keywords",
  "by-other-conditions": "applies only by its other conditions",
  "on-request": "applies only on request",
  "when-mentioned": "applies only when mentioned",
};

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
  `front matter key "${w.key}" should be ${EXPECTED[w.key]}, found ${shown(w.found)}`;

export const orList = (items: readonly string[]) =>
  items.length > 1 ? `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}` : (items[0] ?? "");
