/**
 * The plugin's options (`["opencode-rulebook", { … }]` in opencode.json),
 * validated: an unknown key or a wrong type is reported, and its default used.
 */
import { DEFAULT_MAX_MESSAGE_BYTES } from "./render/compose.js";
import { DEFAULT_MAX_RULE_BYTES } from "./discover/discover.js";
import type { EnforceOption } from "./enforce/violations.js";

export interface RulebookOptions {
  /** Log discovery and delivery details to OpenCode's log. Also on with `OPENCODE_RULEBOOK_DEBUG=1`. */
  debug: boolean;
  /** Ids of the rule sources to read (`native`, `cursor`, …); undefined reads them all. */
  sources?: string[];
  /** More rule folders, relative to the project root or absolute (e.g. `.agents/rules`). */
  extraDirs: string[];
  /** Deliver rules to subagent sessions (those with a parent) too. */
  subagents: boolean;
  /** A larger rule file is skipped with a warning. */
  maxRuleBytes: number;
  /** Past this size a message leaves out lower-priority rules, naming them instead. */
  maxMessageBytes: number;
  /**
   * What a call that breaks a rule that forbids meets: each rule's own mode (`block`), a warning whatever the rule says
   * (`warn`), or no check (`off`).
   */
  enforce: EnforceOption;
  /**
   * Packs of rules (npm, Git, a folder: docs/team-packs.md); the config file naming them is read for where they
   * are (pack-config.ts).
   */
  packs: string[];
  /**
   * Keep a local record of what the rules did (docs/record.md), read by `opencode-rulebook stats`. Also off with
   * `OPENCODE_RULEBOOK_RECORD=0`.
   */
  record: boolean;
}

export const DEFAULT_OPTIONS: RulebookOptions = {
  debug: false,
  sources: undefined,
  extraDirs: [],
  subagents: true,
  maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  enforce: "block",
  packs: [],
  record: true,
};

const ENFORCE_VALUES: readonly EnforceOption[] = ["block", "warn", "off"];

interface ParsedOptions {
  options: RulebookOptions;
  /** One sentence per problem, naming the option and what was done. */
  errors: string[];
}

/** Below this a rule file could not hold even a short rule with front matter. */
export const MIN_RULE_BYTES = 1024;
/**
 * A read reserves up to `maxRuleBytes + 1` bytes, so a huge value would reserve (or fail to reserve) that much per
 * file.
 */
export const MAX_RULE_BYTES_LIMIT = 16 * 1024 * 1024;
/** Room for the message's frame and a rule or two; small budgets are used on purpose to see rules left out. */
export const MIN_MESSAGE_BYTES = 512;
/** A message larger than this would crowd the model's context with rules alone. */
export const MAX_MESSAGE_BYTES_LIMIT = 4 * 1024 * 1024;
/** Each entry of `extraDirs` and `sources` is walked or looked up per session; a handful is plenty. */
export const MAX_LIST_ENTRIES = 32;
/** Longer than any real path (Linux PATH_MAX is 4096). */
const MAX_DIR_LENGTH = 4096;
/** Longer than any pack spec a person writes (a Git URL with a ref and a sub-folder). */
const MAX_PACK_SPEC_LENGTH = 1024;
/** Source ids are short words (`native`, `cursor`). */
const MAX_SOURCE_NAME_LENGTH = 64;
/** Values from an untrusted opencode.json are quoted in errors only this far. */
const MAX_SHOWN_LENGTH = 120;

const BYTE_RANGES = {
  maxRuleBytes: { min: MIN_RULE_BYTES, max: MAX_RULE_BYTES_LIMIT },
  maxMessageBytes: { min: MIN_MESSAGE_BYTES, max: MAX_MESSAGE_BYTES_LIMIT },
} as const;

const isBoundedList = (value: unknown, maxLength: number): value is string[] =>
  Array.isArray(value) &&
  value.length <= MAX_LIST_ENTRIES &&
  value.every((item) => typeof item === "string" && item !== "" && item.length <= maxLength);

/** A value as JSON, cut short so a huge value cannot flood the log. */
function shown(value: unknown): string | undefined {
  const json = JSON.stringify(value);
  return json !== undefined && json.length > MAX_SHOWN_LENGTH ? `${json.slice(0, MAX_SHOWN_LENGTH)}…` : json;
}

export function parseOptions(
  raw: unknown,
  env: Record<string, string | undefined>,
  knownSources?: readonly string[],
): ParsedOptions {
  const options: RulebookOptions = { ...DEFAULT_OPTIONS, extraDirs: [], packs: [] };
  const errors: string[] = [];
  const given = raw === undefined || raw === null ? {} : raw;
  const reject = (key: string, expected: string, value: unknown, fallback: unknown) =>
    errors.push(
      `option "${key}" should be ${expected}, found ${shown(value)}; default ${JSON.stringify(fallback) ?? "(all)"} used`,
    );
  if (typeof given !== "object" || Array.isArray(given)) {
    errors.push(`options should be an object like { "debug": true }; found ${JSON.stringify(raw)}; defaults used`);
  } else {
    for (const [key, value] of Object.entries(given)) {
      switch (key) {
        case "debug":
        case "subagents":
        case "record":
          if (typeof value === "boolean") options[key] = value;
          else reject(key, "true or false", value, options[key]);
          break;
        case "maxRuleBytes":
        case "maxMessageBytes": {
          const { min, max } = BYTE_RANGES[key];
          if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max)
            options[key] = value;
          else reject(key, `a whole number of bytes from ${min} to ${max}`, value, options[key]);
          break;
        }
        case "enforce":
          if (ENFORCE_VALUES.includes(value as EnforceOption)) options.enforce = value as EnforceOption;
          else reject(key, `"block", "warn" or "off"`, value, options.enforce);
          break;
        case "extraDirs":
          if (isBoundedList(value, MAX_DIR_LENGTH)) options.extraDirs = value;
          else
            reject(
              key,
              `a list of at most ${MAX_LIST_ENTRIES} folder paths, each 1 to ${MAX_DIR_LENGTH} characters`,
              value,
              [],
            );
          break;
        case "packs":
          if (isBoundedList(value, MAX_PACK_SPEC_LENGTH)) options.packs = value;
          else
            reject(
              key,
              `a list of at most ${MAX_LIST_ENTRIES} pack specs (an npm package, github:owner/repo#ref, a folder), each 1 to ${MAX_PACK_SPEC_LENGTH} characters`,
              value,
              [],
            );
          break;
        case "sources": {
          if (!isBoundedList(value, MAX_SOURCE_NAME_LENGTH)) {
            reject(
              key,
              `a list of at most ${MAX_LIST_ENTRIES} source names${knownSources ? ` (${knownSources.join(", ")})` : ""}`,
              value,
              undefined,
            );
            break;
          }
          const unknown = knownSources ? value.filter((id) => !knownSources.includes(id)) : [];
          if (unknown.length > 0)
            errors.push(
              `option "sources" names unknown sources ${unknown.map((id) => `"${id}"`).join(", ")} (known: ${knownSources?.join(", ")}); they were ignored`,
            );
          options.sources = value.filter((id) => !unknown.includes(id));
          break;
        }
        default:
          errors.push(`unknown option ${shown(key)} ignored (known: ${Object.keys(DEFAULT_OPTIONS).join(", ")})`);
      }
    }
  }
  if (env.OPENCODE_RULEBOOK_DEBUG === "1" || env.OPENCODE_RULEBOOK_DEBUG === "true") options.debug = true;
  const record = env.OPENCODE_RULEBOOK_RECORD?.trim().toLowerCase();
  if (record === "0" || record === "false" || record === "off" || record === "no") options.record = false;
  return { options, errors };
}
