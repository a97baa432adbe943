/**
 * What a kept parse read back from the cache file must look like before it
 * stands for a rule file: the file is the user's own, but may be cut short,
 * hand-edited or written by another build. An entry that does not fit is
 * dropped, and its rule file read again.
 */
import type { ParsedRule } from "../rule/parse.js";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const strings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string");

export function validCachedParse(parsed: unknown, path: string): parsed is ParsedRule {
  if (!isObject(parsed) || !Array.isArray(parsed.warnings)) return false;
  if (!parsed.warnings.every((warning) => isObject(warning) && typeof warning.path === "string" && typeof warning.code === "string")) return false;
  const rule = parsed.rule;
  if (rule === undefined) return true;
  return (
    isObject(rule) &&
    rule.path === path &&
    typeof rule.name === "string" &&
    typeof rule.content === "string" &&
    typeof rule.displayPath === "string" &&
    typeof rule.source === "string" &&
    (rule.scope === "global" || rule.scope === "project") &&
    (rule.match === "any" || rule.match === "all") &&
    typeof rule.priority === "number" &&
    typeof rule.override === "boolean" &&
    strings(rule.globs) &&
    strings(rule.keywords) &&
    strings(rule.unknownKeys)
  );
}
