/**
 * A rule's conditions from its front matter: each kind reads its keys, in
 * the list's order. Pure; rule/condition-warnings.ts words what was wrong.
 */
import type { ConditionProblem, FrontMatterData } from "./contract.js";
import { KINDS, type AnyKind, type RuleConditions } from "./list.js";

export interface ReadConditions {
  conditions: RuleConditions;
  /** Each kind's problems, in the list's order. */
  problems: ConditionProblem[];
  /** Keys given in another tool's rule file of kinds only the plugin's own folders read: not read. */
  notRead: string[];
}

/** `otherTool`: the file is another tool's (Cursor's, Claude Code's…), not one of the plugin's own folders. */
export function readConditions(
  data: FrontMatterData,
  otherTool: boolean,
  kinds: readonly AnyKind[] = KINDS,
): ReadConditions {
  const conditions: Record<string, unknown> = {};
  const problems: ConditionProblem[] = [];
  const notRead: string[] = [];
  for (const kind of kinds) {
    // A kind none of whose keys is there reads nothing: most rules have few keys.
    if (!kind.keys.some((key) => key in data)) continue;
    if (otherTool && !kind.inOtherTools) {
      notRead.push(...kind.keys.filter((key) => data[key] !== undefined && data[key] !== null));
      continue;
    }
    const read = kind.read(data);
    problems.push(...read.problems);
    if (read.value !== undefined) conditions[kind.kind] = read.value;
  }
  return { conditions: conditions as RuleConditions, problems, notRead };
}
