/**
 * The plugin's options (`["opencode-rulebook", { … }]` in opencode.json),
 * validated: an unknown key or a wrong type is reported, and its default used.
 */
import { DEFAULT_MAX_RULE_BYTES } from "./sources/discover.js";

export interface RulebookOptions {
  /** Log discovery and delivery details to OpenCode's log. Also on with `OPENCODE_RULEBOOK_DEBUG=1`. */
  debug: boolean;
  /** Deliver rules to subagent sessions (those with a parent) too. */
  subagents: boolean;
  /** A larger rule file is skipped with a warning. */
  maxRuleBytes: number;
}

export const DEFAULT_OPTIONS: RulebookOptions = { debug: false, subagents: true, maxRuleBytes: DEFAULT_MAX_RULE_BYTES };

export interface ParsedOptions {
  options: RulebookOptions;
  /** One sentence per problem, naming the option and what was done. */
  errors: string[];
}

export function parseOptions(raw: unknown, env: Record<string, string | undefined>): ParsedOptions {
  const options = { ...DEFAULT_OPTIONS };
  const errors: string[] = [];
  const given = raw === undefined || raw === null ? {} : raw;
  if (typeof given !== "object" || Array.isArray(given)) {
    errors.push(`options should be an object like { "debug": true }; found ${JSON.stringify(raw)}; defaults used`);
  } else {
    for (const [key, value] of Object.entries(given)) {
      switch (key) {
        case "debug":
        case "subagents":
          if (typeof value === "boolean") options[key] = value;
          else errors.push(`option "${key}" should be true or false, found ${JSON.stringify(value)}; default ${options[key]} used`);
          break;
        case "maxRuleBytes":
          if (typeof value === "number" && Number.isInteger(value) && value > 0) options.maxRuleBytes = value;
          else errors.push(`option "maxRuleBytes" should be a positive whole number of bytes, found ${JSON.stringify(value)}; default ${options.maxRuleBytes} used`);
          break;
        default:
          errors.push(`unknown option "${key}" ignored (known: ${Object.keys(DEFAULT_OPTIONS).join(", ")})`);
      }
    }
  }
  if (env.OPENCODE_RULEBOOK_DEBUG === "1" || env.OPENCODE_RULEBOOK_DEBUG === "true") options.debug = true;
  return { options, errors };
}
