/**
 * One rule file's bytes → a Rule, or warnings that say why it was skipped.
 * Pure: the file has already been read by a source.
 *
 * Fail closed: a rule whose conditions cannot be read is skipped, never
 * delivered as if it always applied.
 */
import { globProblem } from "../select/globs.js";
import { decodeRuleText } from "./decode.js";
import { splitFrontMatter } from "./front-matter.js";
import { DEFAULT_PRIORITY, type MatchMode, type Rule, type RuleScope } from "./rule.js";
import { foundValue, ruleSkipped, ruleWarning, type CheckedKey, type DefaultedKey, type FactsWithout, type RuleWarning } from "./warnings.js";

/** A rule file a source has found, before it is read. */
export interface RuleCandidate {
  name: string;
  scope: RuleScope;
  source: string;
  path: string;
  displayPath: string;
}

export interface ParsedRule {
  rule?: Rule;
  warnings: RuleWarning[];
}

/**
 * Turns another tool's front matter into this plugin's keys (e.g. Kiro's
 * `inclusion: fileMatch` + `fileMatchPattern` → `globs`). Returns the keys it
 * understood, mapped, and leaves the rest for the common reader.
 */
export type FrontMatterMapper = (data: Record<string, unknown>) => Record<string, unknown>;

/** Keys the common reader understands, with the aliases users bring from other tools. */
export const GLOB_KEYS = ["globs", "paths", "applyTo", "fileMatchPattern"] as const;
export const KEYWORD_KEYS = ["keywords", "topics"] as const;
const KNOWN_KEYS = new Set<string>(["description", "alwaysApply", "enabled", "match", "priority", "override", ...GLOB_KEYS, ...KEYWORD_KEYS]);

export function parseRule(candidate: RuleCandidate, bytes: Uint8Array, mapFrontMatter: FrontMatterMapper = (data) => data): ParsedRule {
  const skip = (facts: FactsWithout<"rule">): ParsedRule => ({ warnings: [ruleSkipped(candidate.path, candidate.name, facts)] });

  const decoded = decodeRuleText(bytes);
  if (!decoded.ok) return skip({ code: "not-text", reason: decoded.reason });
  if (decoded.text.trim() === "") return skip({ code: "file-empty" });

  const front = splitFrontMatter(decoded.text);
  if (!front.ok) return skip({ ...front.problem, line: front.line });

  const content = front.body.trim();
  if (content === "") return skip({ code: "no-rule-text", line: front.bodyLine });

  const data = mapFrontMatter(front.data);
  const warnings: RuleWarning[] = [];
  const lineOf = (key: string) => keyLine(decoded.text, key);
  /** The rule is skipped: this key's value is of the wrong type. */
  const invalid = (key: CheckedKey) => skip({ code: "key-invalid", key, found: foundValue(data[key]), line: lineOf(key) });
  /** The rule loads without this key's value. */
  const ignored = (key: DefaultedKey) => warnings.push(ruleWarning(candidate.path, { code: "key-ignored", key, found: foundValue(data[key]), line: lineOf(key) }));

  const enabled = data.enabled;
  if (enabled !== undefined && typeof enabled !== "boolean") return invalid("enabled");
  if (enabled === false) return { warnings };

  const alwaysApply = data.alwaysApply;
  if (alwaysApply !== undefined && typeof alwaysApply !== "boolean") return invalid("alwaysApply");

  const globs: string[] = [];
  const unusableGlobs: UnusableGlob[] = [];
  for (const key of GLOB_KEYS) {
    const read = readList(data[key]);
    if (read === undefined) return invalid(key);
    for (const glob of read) {
      const problem = globProblem(glob);
      if (problem === undefined) globs.push(glob);
      else unusableGlobs.push({ glob, problem, line: lineOf(key) });
    }
  }

  const keywords: string[] = [];
  for (const key of KEYWORD_KEYS) {
    const read = readList(data[key]);
    if (read === undefined) return invalid(key);
    keywords.push(...read);
  }

  let match: MatchMode = "any";
  if (data.match === "all" || data.match === "any") match = data.match;
  else if (data.match !== undefined) return invalid("match");

  let priority = DEFAULT_PRIORITY;
  if (data.priority !== undefined) {
    if (typeof data.priority === "number" && Number.isInteger(data.priority) && data.priority >= 1 && data.priority <= 100) priority = data.priority;
    else ignored("priority");
  }

  let override = false;
  if (typeof data.override === "boolean") override = data.override;
  else if (data.override !== undefined) ignored("override");

  let description: string | undefined;
  if (typeof data.description === "string" && data.description.trim() !== "") description = data.description.trim();
  else if (data.description !== undefined && data.description !== null && typeof data.description !== "string") {
    // A description only informs; losing it never widens what the rule applies to.
    ignored("description");
  }

  // Fail closed: a rule whose every glob is unusable must not turn into an always-on rule.
  const lost = unusableGlobs.length > 0 && globs.length === 0 ? lostFileCondition({ alwaysApply, keywords, match, description }) : undefined;
  unusableGlobs.forEach(({ glob, problem, line }, index) => {
    const nowApplies = lost && index === unusableGlobs.length - 1 ? lost.applies : undefined;
    warnings.push(ruleWarning(candidate.path, { code: "glob-unusable", glob, problem, nowApplies, line }));
  });
  const activation = lost?.activation ?? { alwaysApply, keywords };

  const unknownKeys = Object.keys(data).filter((key) => !KNOWN_KEYS.has(key));
  return {
    rule: { ...candidate, content, description, globs, keywords: activation.keywords, alwaysApply: activation.alwaysApply, match, priority, override, unknownKeys },
    warnings,
  };
}

interface UnusableGlob {
  glob: string;
  problem: string;
  line?: number;
}

interface Activation {
  alwaysApply: boolean | undefined;
  keywords: string[];
}

/**
 * What a rule becomes when none of its globs can be used, and how to say so.
 * `alwaysApply: true` is unaffected; keywords that sufficed alone (`match: any`)
 * still apply; otherwise the rule waits to be asked for, never widening to always.
 */
function lostFileCondition(rule: Activation & { match: MatchMode; description?: string }): { activation: Activation; applies: "by-keywords" | "on-request" | "when-mentioned" } | undefined {
  if (rule.alwaysApply === true) return undefined;
  if (rule.keywords.length > 0 && rule.match === "any") return { activation: { alwaysApply: rule.alwaysApply, keywords: rule.keywords }, applies: "by-keywords" };
  return {
    activation: { alwaysApply: false, keywords: [] },
    applies: rule.description ? "on-request" : "when-mentioned",
  };
}

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
  let current = "";
  for (const char of text) {
    if (char === "{") depth++;
    if (char === "}") depth = Math.max(0, depth - 1);
    if (char === "," && depth === 0) {
      items.push(current);
      current = "";
    } else current += char;
  }
  items.push(current);
  return items.map((item) => item.trim().replace(/^["']|["']$/g, "")).filter((item) => item !== "");
}

/** 1-based line of a top-level front matter key, for warnings. */
function keyLine(text: string, key: string): number | undefined {
  const index = text.split("\n").findIndex((line) => line.startsWith(`${key}:`));
  return index >= 0 ? index + 1 : undefined;
}
