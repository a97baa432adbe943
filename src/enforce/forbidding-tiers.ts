/**
 * A rule set's forbidden patterns, by trust, compiled into scan sets once per
 * rule set: checks run the most trusted first (`violations.ts`), and a
 * repository's patterns are matched in smaller sets than the user's.
 */
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import { type ScanCore, type ScanShape, scanCore } from "../pattern/pattern-scan.js";
import { prepareSets, type Slicing } from "../pattern/scan-slices.js";
import type { Rule } from "../rule/rule.js";
import { TRUST_ORDER, type Trust, trustOf } from "../rule/trust.js";

/**
 * A repository's patterns are matched in sets of this many instructions, a
 * quarter of the user's: on patterns the DFA gives up on, a step (a set
 * against a window) costs about the set's size times the window, and a
 * smaller set keeps its DFA within memory far longer (measured: 50 hostile
 * patterns against 800 KB of long lines, 5 s and unfinished in sets of
 * 10,000; 0.2 s in sets of 2,500). Ordinary patterns cost more passes so.
 */
export const REPOSITORY_GROUP_SIZE = 2_500;

/** The patterns of one kind, each with the rule it belongs to, and the sets that scan them. */
export interface Forbidden {
  readonly owners: ReadonlyArray<{ rule: Rule; pattern: ForbidPattern }>;
  readonly core?: ScanCore;
}

/** One trust's forbidden patterns. */
export interface Tier {
  readonly trust: Trust;
  readonly file: Forbidden;
  readonly command: Forbidden;
}

/** Built once per rule set (a reload gives a new list): compiling thousands of patterns is the costly part. */
const built = new WeakMap<readonly Rule[], Tier[]>();

/** The rule set's forbidden patterns by trust, the most trusted first; trusts that forbid nothing are left out. */
export function forbiddingTiers(rules: readonly Rule[]): Tier[] {
  let tiers = built.get(rules);
  if (!tiers) {
    tiers = TRUST_ORDER.flatMap((trust) => {
      const forbidding = rules.filter((rule) => rule.enforce !== undefined && trustOf(rule) === trust);
      if (forbidding.length === 0) return [];
      const shape: ScanShape = trust === "repository" ? { groupSize: REPOSITORY_GROUP_SIZE } : {};
      const file = forbidding.flatMap((rule) => (rule.enforce?.forbid ?? []).map((pattern) => ({ rule, pattern })));
      const command = forbidding.flatMap((rule) => (rule.enforce?.forbidCommands ?? []).map((pattern) => ({ rule, pattern })));
      return [{ trust, file: forbidden(file, shape), command: forbidden(command, shape) }];
    });
    built.set(rules, tiers);
  }
  return tiers;
}

function forbidden(owners: Array<{ rule: Rule; pattern: ForbidPattern }>, shape: ScanShape): Forbidden {
  return owners.length === 0
    ? { owners }
    : {
        owners,
        core: scanCore(
          owners.map(({ pattern }) => pattern),
          shape,
        ),
      };
}

/** Compiles every set the rule set's checks will use, in slices, off the path of the first checked call; `stop()` true ends it. */
export async function prepareForbidden(rules: readonly Rule[], slicing: Slicing, stop: () => boolean): Promise<void> {
  for (const tier of forbiddingTiers(rules)) {
    for (const kind of [tier.file, tier.command]) if (kind.core) await prepareSets(kind.core, slicing, stop);
  }
}
