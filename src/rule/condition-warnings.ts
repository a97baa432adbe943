/**
 * A rule's conditions as the common reader takes them (conditions/read.ts):
 * their problems as the warnings users see, and the fail-closed reading of a
 * trigger lost. A rule whose every glob, or every content pattern, cannot be
 * used never applies more widely than its author wrote. Pure.
 */
import { conditionOf, kindOfKey, type ConditionKey, type RuleConditions } from "../conditions/list.js";
import { withoutLostCondition, type LostContext, type NowApplies } from "../conditions/lost.js";
import type { ReadConditions } from "../conditions/read.js";
import { keyLine } from "./keys.js";
import { patternWarnings } from "./pattern-list.js";
import { ruleWarning, type RuleWarning, type WarningFacts } from "./warnings.js";

/** The rule file: its path, its whole text (for lines), its front matter, and the tool it is another tool's of. */
interface ConditionsFile {
  path: string;
  text: string;
  data: Readonly<Record<string, unknown>>;
  tool?: string;
}

interface TakenConditions {
  conditions: RuleConditions;
  alwaysApply: boolean | undefined;
  /** Said before the warnings about the rule's other keys (keys not read, scopes naming none). */
  first: RuleWarning[];
  /** Said after them (patterns left out, then the triggers' values left out or lost). */
  last: RuleWarning[];
}

/** The key that skips the rule: its value cannot be read. */
export const unreadableKey = (read: ReadConditions): ConditionKey | undefined =>
  read.problems.find((problem) => problem.code === "unreadable")?.key as ConditionKey | undefined;

export function takeConditions(read: ReadConditions, rule: LostContext, file: ConditionsFile): TakenConditions {
  if (read.problems.length === 0 && read.notRead.length === 0)
    return { conditions: read.conditions, alwaysApply: rule.alwaysApply, first: [], last: [] };
  let { conditions } = read;
  let alwaysApply = rule.alwaysApply;
  const first: RuleWarning[] = [];
  const patterns: RuleWarning[] = [];
  const lost: RuleWarning[] = [];
  const warn = (facts: WarningFacts) => ruleWarning(file.path, facts);
  const line = (key: string) => keyLine(file.text, key);
  /** Fail closed: the rule as it is once a trigger is lost, and what it applies by now. */
  const lose = (): NowApplies | undefined => {
    const without = withoutLostCondition(conditions, { ...rule, alwaysApply });
    if (!without) return undefined;
    ({ conditions, alwaysApply } = without);
    return without.applies;
  };
  for (const key of read.notRead)
    first.push(warn({ code: "key-ignored-by-tool", key, tool: file.tool ?? "", alwaysOn: false, line: line(key) }));
  for (const problem of read.problems) {
    const key = problem.key as ConditionKey;
    switch (problem.code) {
      case "unreadable":
        break; // the rule is skipped before its conditions are taken
      case "names-none":
        first.push(warn({ code: "scope-empty", key, line: line(key) }));
        break;
      case "pattern":
        patterns.push(...patternWarnings(key, file.data[key], [problem.problem], file));
        break;
      case "value-unusable": {
        const nowApplies = problem.lost ? lose() : undefined;
        const { value: glob, reason } = problem;
        lost.push(warn({ code: "glob-unusable", glob, problem: reason, nowApplies, line: line(key) }));
        break;
      }
      case "lost-if-none": {
        const kind = kindOfKey(key);
        if (kind && conditionOf({ conditions }, kind) === undefined)
          lost.push(warn({ code: "content-condition-lost", key, nowApplies: lose(), line: line(key) }));
        break;
      }
    }
  }
  return { conditions, alwaysApply, first, last: [...patterns, ...lost] };
}
