/**
 * One rule file's bytes → a Rule, or warnings that say why it was skipped.
 * Pure: the file has already been read by a source.
 *
 * Fail closed: a rule whose conditions cannot be read is skipped, never
 * delivered as if it always applied.
 */
import { decodeRuleText } from "./decode.js";
import { splitFrontMatter } from "./front-matter.js";
import type { Rule, RuleWarning, RuleScope } from "./rule.js";

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

const KNOWN_KEYS = new Set(["description", "globs", "alwaysApply", "enabled"]);

export function parseRule(candidate: RuleCandidate, bytes: Uint8Array): ParsedRule {
  const skip = (message: string, line?: number): ParsedRule => ({
    warnings: [{ path: candidate.path, line, message: `${message}; rule "${candidate.name}" skipped` }],
  });

  const decoded = decodeRuleText(bytes);
  if (!decoded.ok) return skip(decoded.reason);
  if (decoded.text.trim() === "") return skip("the file is empty");

  const front = splitFrontMatter(decoded.text);
  if (!front.ok) return skip(front.reason, front.line);

  const content = front.body.trim();
  if (content === "") return skip("the file has front matter but no rule text", front.bodyLine);

  const { data } = front;
  const warnings: RuleWarning[] = [];
  const wrongType = (key: string, expected: string) =>
    `front matter key "${key}" should be ${expected}, found ${describe(data[key])}`;

  const enabled = data.enabled;
  if (enabled !== undefined && typeof enabled !== "boolean") return skip(wrongType("enabled", "true or false"));
  if (enabled === false) return { warnings };

  const alwaysApply = data.alwaysApply;
  if (alwaysApply !== undefined && typeof alwaysApply !== "boolean") return skip(wrongType("alwaysApply", "true or false"));

  const globs = readGlobs(data.globs);
  if (globs === undefined) return skip(wrongType("globs", "a glob, a comma-separated list of globs, or a YAML list of globs"));

  let description: string | undefined;
  if (typeof data.description === "string" && data.description.trim() !== "") description = data.description.trim();
  else if (data.description !== undefined && data.description !== null && typeof data.description !== "string") {
    // A description only informs; losing it never widens what the rule applies to.
    warnings.push({ path: candidate.path, message: `${wrongType("description", "text")}; description ignored` });
  }

  const unknownKeys = Object.keys(data).filter((key) => !KNOWN_KEYS.has(key));
  return {
    rule: { ...candidate, content, description, globs, alwaysApply, unknownKeys },
    warnings,
  };
}

/**
 * Globs as users write them: a YAML list, one string, or Cursor's
 * comma-separated string. Commas inside `{a,b}` braces belong to the glob.
 * Returns undefined when the value cannot be read as globs.
 */
export function readGlobs(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return splitGlobList(value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.flatMap((item: string) => splitGlobList(item));
  }
  return undefined;
}

function splitGlobList(text: string): string[] {
  const globs: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "{") depth++;
    if (char === "}") depth = Math.max(0, depth - 1);
    if (char === "," && depth === 0) {
      globs.push(current);
      current = "";
    } else current += char;
  }
  globs.push(current);
  return globs.map((glob) => glob.trim().replace(/^["']|["']$/g, "")).filter((glob) => glob !== "");
}

function describe(value: unknown): string {
  if (value === null) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Date) return "a date";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${JSON.stringify(value)}`.slice(0, 60);
}
