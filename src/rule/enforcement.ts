/**
 * What a rule forbids, read from its front matter: `forbid` (text that must
 * not be added to the files it applies to), `forbidCommands` (shell commands
 * that must not run), each a pattern or a list of them, and `enforce`
 * (`block`, the default, or `warn`). Pure.
 *
 * A pattern that cannot be used is left out with a warning, never the rule:
 * the rule still reaches the model, which is told what not to do either way.
 * Only this plugin's own folders may forbid: another tool's rule file applies
 * as it does in that tool, which enforces nothing.
 */
import { ENFORCEMENT_KEYS, keyLine } from "./keys.js";
import { readPatternList } from "./pattern-list.js";
import type { EnforceMode, RuleEnforcement } from "./rule.js";
import { foundValue, ruleWarning, type RuleWarning } from "./warnings.js";

/** The sources whose rules may forbid, all in the plugin's own format: `.opencode/rules` with the global folder, `extraDirs`, the managed folder, packs. */
const ENFORCING_SOURCES: ReadonlySet<string> = new Set(["native", "extra", "managed", "pack"]);

/** The rule file the front matter comes from: its path and source, and its whole text (for the lines of warnings). */
interface EnforcementFile {
  path: string;
  source: string;
  /** The tool whose file it is, as warnings name it. */
  tool?: string;
  text: string;
}

/** The rule's enforcement, absent when it has no usable pattern; and what was wrong. */
interface ReadEnforcement {
  enforce?: RuleEnforcement;
  warnings: RuleWarning[];
}

export function readEnforcement(data: Record<string, unknown>, file: EnforcementFile): ReadEnforcement {
  const warnings: RuleWarning[] = [];
  const present = ENFORCEMENT_KEYS.filter((key) => data[key] !== undefined && data[key] !== null);
  if (present.length === 0) return { warnings };
  if (!ENFORCING_SOURCES.has(file.source)) {
    const tool = file.tool ?? file.source;
    for (const key of present)
      warnings.push(
        ruleWarning(file.path, { code: "enforcement-ignored-by-tool", key, tool, line: keyLine(file.text, key) }),
      );
    return { warnings };
  }
  const forbid = readPatternList(data, "forbid", file, warnings);
  const forbidCommands = readPatternList(data, "forbidCommands", file, warnings);
  if (forbid.length === 0 && forbidCommands.length === 0) {
    if (present.includes("enforce"))
      warnings.push(ruleWarning(file.path, { code: "enforce-without-forbid", line: keyLine(file.text, "enforce") }));
    return { warnings };
  }
  return { enforce: { mode: readMode(data.enforce, file, warnings), forbid, forbidCommands }, warnings };
}

/** `enforce`: `block` unless it says `warn`; any other value blocks too, as the stricter reading. */
function readMode(value: unknown, file: EnforcementFile, warnings: RuleWarning[]): EnforceMode {
  if (value === "warn") return "warn";
  if (value !== undefined && value !== null && value !== "block") {
    warnings.push(
      ruleWarning(file.path, {
        code: "enforce-invalid",
        found: foundValue(value),
        line: keyLine(file.text, "enforce"),
      }),
    );
  }
  return "block";
}
