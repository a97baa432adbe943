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
import { MAX_PATTERNS_PER_RULE, readForbidPattern, type ForbidPattern } from "../pattern/forbid-pattern.js";
import { ENFORCEMENT_KEYS, type ForbidKey, itemLines, keyLine } from "./keys.js";
import type { EnforceMode, RuleEnforcement } from "./rule.js";
import { foundValue, ruleWarning, type RuleWarning } from "./warnings.js";

/** The sources whose rules may forbid: `.opencode/rules` with the global folder, and `extraDirs`. */
const ENFORCING_SOURCES: ReadonlySet<string> = new Set(["native", "extra"]);

/** The tools of the other sources, as warnings name them. */
const TOOL_NAMES: Readonly<Record<string, string>> = {
  cursor: "Cursor",
  claude: "Claude Code",
  windsurf: "Windsurf",
  cline: "Cline",
  copilot: "GitHub Copilot",
  kiro: "Kiro",
};

/** A pattern as a warning quotes it: the first characters of a long one. */
const QUOTED_LENGTH = 80;

/** The rule file the front matter comes from: its path and source, and its whole text (for the lines of warnings). */
export interface EnforcementFile {
  path: string;
  source: string;
  text: string;
}

/** The rule's enforcement, absent when it has no usable pattern; and what was wrong. */
export interface ReadEnforcement {
  enforce?: RuleEnforcement;
  warnings: RuleWarning[];
}

export function readEnforcement(data: Record<string, unknown>, file: EnforcementFile): ReadEnforcement {
  const warnings: RuleWarning[] = [];
  const present = ENFORCEMENT_KEYS.filter((key) => data[key] !== undefined && data[key] !== null);
  if (present.length === 0) return { warnings };
  if (!ENFORCING_SOURCES.has(file.source)) {
    const tool = TOOL_NAMES[file.source] ?? file.source;
    for (const key of present) warnings.push(ruleWarning(file.path, { code: "enforcement-ignored-by-tool", key, tool, line: keyLine(file.text, key) }));
    return { warnings };
  }
  const forbid = readPatterns(data, "forbid", file, warnings);
  const forbidCommands = readPatterns(data, "forbidCommands", file, warnings);
  if (forbid.length === 0 && forbidCommands.length === 0) {
    if (present.includes("enforce")) warnings.push(ruleWarning(file.path, { code: "enforce-without-forbid", line: keyLine(file.text, "enforce") }));
    return { warnings };
  }
  return { enforce: { mode: readMode(data.enforce, file, warnings), forbid, forbidCommands }, warnings };
}

/**
 * One key's usable patterns: a string is one pattern, a list holds several
 * (never split at commas, which patterns hold); the first
 * MAX_PATTERNS_PER_RULE are read, the rest ignored unread.
 */
function readPatterns(data: Record<string, unknown>, key: ForbidKey, file: EnforcementFile, warnings: RuleWarning[]): ForbidPattern[] {
  const value = data[key];
  if (value === undefined || value === null) return [];
  const warn = (facts: Parameters<typeof ruleWarning>[1]) => warnings.push(ruleWarning(file.path, facts));
  const items: readonly unknown[] | undefined = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
  if (!items) {
    warn({ code: "forbid-invalid", key, found: foundValue(value), line: keyLine(file.text, key) });
    return [];
  }
  if (items.length > MAX_PATTERNS_PER_RULE) {
    warn({ code: "forbid-too-many", key, count: items.length, limit: MAX_PATTERNS_PER_RULE, line: keyLine(file.text, key) });
  }
  const read = items.slice(0, MAX_PATTERNS_PER_RULE);
  const lines = itemLines(file.text, key, read);
  const patterns: ForbidPattern[] = [];
  read.forEach((item, index) => {
    const line = lines[index];
    if (typeof item !== "string") {
      warn({ code: "forbid-invalid", key, found: foundValue(item), item: index + 1, line });
      return;
    }
    const pattern = readForbidPattern(item);
    if ("pattern" in pattern) patterns.push(pattern.pattern);
    else warn({ code: "forbid-pattern-unusable", key, pattern: quoted(item), problem: pattern.problem, line });
  });
  return patterns;
}

/** `enforce`: `block` unless it says `warn`; any other value blocks too, as the stricter reading. */
function readMode(value: unknown, file: EnforcementFile, warnings: RuleWarning[]): EnforceMode {
  if (value === "warn") return "warn";
  if (value !== undefined && value !== null && value !== "block") {
    warnings.push(ruleWarning(file.path, { code: "enforce-invalid", found: foundValue(value), line: keyLine(file.text, "enforce") }));
  }
  return "block";
}

const quoted = (pattern: string) => (pattern.length > QUOTED_LENGTH ? `${pattern.slice(0, QUOTED_LENGTH - 1)}…` : pattern);
