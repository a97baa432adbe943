/**
 * A rule set's forbidden patterns, by trust, compiled into scan sets once per
 * rule set: checks run the most trusted first (`violations.ts`), each trust's
 * patterns in sets of their own (a regular expression the DFA may give up
 * on in smaller ones: `pattern/pattern-scan.ts`).
 */
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import { type ScanCore, scanCore } from "../pattern/pattern-scan.js";
import { prepareSets, type Slicing } from "../pattern/scan-slices.js";
import type { Rule } from "../rule/rule.js";
import { TRUST_ORDER, type Trust, trustOf } from "../rule/trust.js";

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
      const file = forbidding.flatMap((rule) => (rule.enforce?.forbid ?? []).map((pattern) => ({ rule, pattern })));
      const command = forbidding.flatMap((rule) =>
        (rule.enforce?.forbidCommands ?? []).map((pattern) => ({ rule, pattern })),
      );
      return [{ trust, file: forbidden(file), command: forbidden(command) }];
    });
    built.set(rules, tiers);
  }
  return tiers;
}

function forbidden(owners: Array<{ rule: Rule; pattern: ForbidPattern }>): Forbidden {
  return owners.length === 0 ? { owners } : { owners, core: scanCore(owners.map(({ pattern }) => pattern)) };
}

/** Compiles every set the rule set's checks will use, in slices, off the path of the first checked call; `stop()` true ends it. */
export async function prepareForbidden(rules: readonly Rule[], slicing: Slicing, stop: () => boolean): Promise<void> {
  for (const tier of forbiddingTiers(rules)) {
    for (const kind of [tier.file, tier.command]) if (kind.core) await prepareSets(kind.core, slicing, stop);
  }
}
