/**
 * A front matter key holding patterns, as warnings say what was wrong with
 * it: pattern/pattern-list.ts reads the value, this words its problems at
 * their lines (the key's, or an item's). Pure.
 */
import type { ConditionKey } from "../conditions/list.js";
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import { patternItems, readPatterns, type PatternListProblem } from "../pattern/pattern-list.js";
import { itemLines, keyLine, type ForbidKey } from "./keys.js";
import { foundValue, ruleWarning, type RuleWarning, type WarningFacts } from "./warnings.js";

/** A pattern as a warning quotes it: the first characters of a long one. */
const QUOTED_LENGTH = 80;

/** The rule file the front matter comes from: its path, and its whole text (for the lines of warnings). */
interface PatternFile {
  path: string;
  text: string;
}

/** What the rule forbids under `key` (`forbid`, `forbidCommands`); what was wrong goes to `warnings`. */
export function readPatternList(
  data: Record<string, unknown>,
  key: ForbidKey,
  file: PatternFile,
  warnings: RuleWarning[],
): ForbidPattern[] {
  const read = readPatterns(data[key]);
  warnings.push(...patternWarnings(key, data[key], read.problems, file));
  return read.patterns;
}

/** The problems of the patterns `value` holds under `key`, as warnings at their lines. */
export function patternWarnings(
  key: ForbidKey | ConditionKey,
  value: unknown,
  problems: readonly PatternListProblem[],
  file: PatternFile,
): RuleWarning[] {
  if (problems.length === 0) return [];
  const lines = itemLines(file.text, key, patternItems(value) ?? []);
  return problems.map((problem) => ruleWarning(file.path, factsOf(problem, key, file.text, lines)));
}

function factsOf(
  problem: PatternListProblem,
  key: ForbidKey | ConditionKey,
  text: string,
  lines: readonly (number | undefined)[],
): WarningFacts {
  switch (problem.code) {
    case "not-patterns":
      return { code: "forbid-invalid", key, found: foundValue(problem.found), line: keyLine(text, key) };
    case "too-many":
      return { code: "forbid-too-many", key, count: problem.count, limit: problem.limit, line: keyLine(text, key) };
    case "not-a-pattern":
      return {
        code: "forbid-invalid",
        key,
        found: foundValue(problem.found),
        item: problem.item + 1,
        line: lines[problem.item],
      };
    case "unusable":
      return {
        code: "forbid-pattern-unusable",
        key,
        pattern: quoted(problem.written),
        problem: problem.problem,
        line: lines[problem.item],
      };
  }
}

const quoted = (pattern: string) =>
  pattern.length > QUOTED_LENGTH ? `${pattern.slice(0, QUOTED_LENGTH - 1)}…` : pattern;
