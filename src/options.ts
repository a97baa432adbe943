/**
 * The plugin's options (`["opencode-rulebook", { … }]` in opencode.json),
 * validated: an unknown key or a wrong type is reported, and its default used.
 */
import { DEFAULT_MAX_MESSAGE_BYTES } from "./render/compose.js";
import { DEFAULT_MAX_RULE_BYTES } from "./sources/discover.js";

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
}

export const DEFAULT_OPTIONS: RulebookOptions = {
  debug: false,
  sources: undefined,
  extraDirs: [],
  subagents: true,
  maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
};

export interface ParsedOptions {
  options: RulebookOptions;
  /** One sentence per problem, naming the option and what was done. */
  errors: string[];
}

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string" && item !== "");

export function parseOptions(raw: unknown, env: Record<string, string | undefined>, knownSources?: readonly string[]): ParsedOptions {
  const options: RulebookOptions = { ...DEFAULT_OPTIONS, extraDirs: [] };
  const errors: string[] = [];
  const given = raw === undefined || raw === null ? {} : raw;
  const reject = (key: string, expected: string, value: unknown, fallback: unknown) =>
    errors.push(`option "${key}" should be ${expected}, found ${JSON.stringify(value)}; default ${JSON.stringify(fallback) ?? "(all)"} used`);
  if (typeof given !== "object" || Array.isArray(given)) {
    errors.push(`options should be an object like { "debug": true }; found ${JSON.stringify(raw)}; defaults used`);
  } else {
    for (const [key, value] of Object.entries(given)) {
      switch (key) {
        case "debug":
        case "subagents":
          if (typeof value === "boolean") options[key] = value;
          else reject(key, "true or false", value, options[key]);
          break;
        case "maxRuleBytes":
        case "maxMessageBytes":
          if (typeof value === "number" && Number.isInteger(value) && value > 0) options[key] = value;
          else reject(key, "a positive whole number of bytes", value, options[key]);
          break;
        case "extraDirs":
          if (isStringList(value)) options.extraDirs = value;
          else reject(key, "a list of folder paths", value, []);
          break;
        case "sources": {
          if (!isStringList(value)) {
            reject(key, `a list of source names${knownSources ? ` (${knownSources.join(", ")})` : ""}`, value, undefined);
            break;
          }
          const unknown = knownSources ? value.filter((id) => !knownSources.includes(id)) : [];
          if (unknown.length > 0) errors.push(`option "sources" names unknown sources ${unknown.map((id) => `"${id}"`).join(", ")} (known: ${knownSources?.join(", ")}); they were ignored`);
          options.sources = value.filter((id) => !unknown.includes(id));
          break;
        }
        default:
          errors.push(`unknown option "${key}" ignored (known: ${Object.keys(DEFAULT_OPTIONS).join(", ")})`);
      }
    }
  }
  if (env.OPENCODE_RULEBOOK_DEBUG === "1" || env.OPENCODE_RULEBOOK_DEBUG === "true") options.debug = true;
  return { options, errors };
}
