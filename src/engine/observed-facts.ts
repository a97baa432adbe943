/**
 * The session facts the project itself tells (a condition kind that
 * observes its fact: the repository's branch), read again before each turn,
 * tool result and new session, when a rule names such a fact. Each read is
 * small (`smallFileReader`) and bounded in time: a hung mount leaves the fact
 * unknown, never the hook waiting.
 */
import { conditionOf, NARROWING, type SessionFacts } from "../conditions/list.js";
import { perRuleSet } from "../conditions/per-rule-set.js";
import { type RuleFs, smallFileReader } from "../discover/fs.js";
import type { Rule } from "../rule/rule.js";
import { withTimeout } from "./timing.js";

/** How long one fact may take to read before it counts as not known. */
const OBSERVE_MS = 250;

/**
 * The facts the kinds observe in `root`, for the kinds some rule of `rules` names: a project whose rules name no
 * branch reads no `.git/HEAD` on its turns and tool results.
 */
export function factsObserver(
  fs: Pick<RuleFs, "stat" | "readFile">,
  root: string,
): (rules: readonly Rule[]) => Promise<SessionFacts> {
  const read = smallFileReader(fs);
  // Which observing kinds the set's rules name, worked out once per set.
  const observedBy = perRuleSet((rules) =>
    NARROWING.filter((kind) => kind.observe && rules.some((rule) => conditionOf(rule, kind) !== undefined)),
  );
  return async (rules) => {
    const observing = observedBy(rules);
    const facts: Record<string, unknown> = {};
    const found = await Promise.all(
      observing.map((kind) => withTimeout(kind.observe?.(read, root) ?? Promise.resolve(undefined), OBSERVE_MS)),
    );
    observing.forEach((kind, i) => {
      if (found[i] !== undefined) facts[kind.fact] = found[i];
    });
    return facts as SessionFacts;
  };
}
