/**
 * What a write of rule files does to the rules that forbid: which enforcing
 * rule it switches off, strips of patterns, turns to `warn`, moves elsewhere
 * (globs, agents, models) or has shadowed. Rule files stay writable (a rule
 * must be editable by the agent that keeps it); this is what the user is
 * told. Pure: the rules whose forbids hold before the write and after it
 * (formats/load.ts `enforcingRules`), and every rule after it, shadowed or not.
 */
import { conditionOf, NARROWING } from "../conditions/list.js";
import { files } from "../conditions/files.js";
import type { Rule } from "../rule/rule.js";

export type Weakening =
  /** The file is no rule any more: `enabled: false`, emptied, or unreadable. */
  | { readonly kind: "switched-off" }
  /** Patterns it forbade that it no longer does (all of them when it forbids nothing now). */
  | { readonly kind: "patterns-removed"; readonly patterns: readonly string[] }
  /** It blocked, and now only warns. */
  | { readonly kind: "now-warns" }
  /** Its globs or a scope (agents, models) changed, named by key: it holds for other files or agents than it did. */
  | { readonly kind: "scope-changed"; readonly keys: readonly string[] }
  /** Another rule of its name now wins, and its forbids went with it. */
  | { readonly kind: "shadowed"; readonly by: string };

export interface WeakenedRule {
  readonly name: string;
  readonly displayPath: string;
  readonly ways: readonly Weakening[];
}

/** The enforcing rules of `before` that the write weakens, each with how. */
export function weakenedRules(
  before: readonly Rule[],
  after: readonly Rule[],
  everyRuleAfter: readonly Rule[],
): WeakenedRule[] {
  const inForce = new Set(after);
  const atPath = new Map(everyRuleAfter.map((rule) => [rule.path, rule]));
  const weakened: WeakenedRule[] = [];
  for (const rule of before) {
    if (!rule.enforce) continue;
    const now = atPath.get(rule.path);
    const ways = !now
      ? [{ kind: "switched-off" } as const]
      : inForce.has(now)
        ? changes(rule, now)
        : [shadowing(now, after)];
    if (ways.length > 0) weakened.push({ name: rule.name, displayPath: rule.displayPath, ways });
  }
  return weakened;
}

function shadowing(rule: Rule, after: readonly Rule[]): Weakening {
  const winner = after.find((other) => other.name === rule.name && other !== rule);
  return { kind: "shadowed", by: winner?.displayPath ?? "another rule" };
}

/** How `now` forbids less than `was`, the same file read before and after the write. */
function changes(was: Rule, now: Rule): Weakening[] {
  const ways: Weakening[] = [];
  const kept = new Set(writtenPatterns(now));
  const removed = writtenPatterns(was).filter((pattern) => !kept.has(pattern));
  if (removed.length > 0) ways.push({ kind: "patterns-removed", patterns: removed });
  if (was.enforce?.mode === "block" && now.enforce?.mode === "warn") ways.push({ kind: "now-warns" });
  const keys = WHERE_IT_HOLDS.filter(
    (kind) => !sameList(conditionOf(was, kind) as Names, conditionOf(now, kind) as Names),
  ).map((kind) => kind.keys[0]);
  if (now.enforce && keys.length > 0) ways.push({ kind: "scope-changed", keys });
  return ways;
}

type Names = readonly string[] | undefined;

/** The conditions a rule's forbids hold within (enforce/violations.ts): the files its globs match, and its scopes. */
const WHERE_IT_HOLDS = [files, ...NARROWING];

const writtenPatterns = (rule: Rule): string[] =>
  [...(rule.enforce?.forbid ?? []), ...(rule.enforce?.forbidCommands ?? [])].map((pattern) => pattern.written);

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length &&
  (a ?? []).every((entry, i) => entry === (b ?? [])[i]) &&
  (a === undefined) === (b === undefined);
