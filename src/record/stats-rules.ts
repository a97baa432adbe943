/** What the record says of each rule, tallied in one pass and turned into `stats` rows. Pure. */
import type { RuleScope } from "../rule/rule.js";
import type { RecordEvent } from "./event.js";

/** A rule the project has now: `stats` names those never applied, and shows where each is from. */
export interface KnownRule {
  name: string;
  scope: RuleScope;
  /** The rule file, as people read it. */
  source: string;
  /** The pack it came from, as people read it. */
  pack?: string;
}

/** One rule's figures in the period (`stats --json`'s `rules`). */
export interface RuleStatsRow {
  rule: string;
  scope?: RuleScope;
  source?: string;
  pack?: string;
  /** Sessions the rule reached: delivered or requested in them. */
  sessions: number;
  delivered: number;
  /** Tokens delivered, estimated, in total. */
  tokens: number;
  tokensPerSession: number;
  refused: number;
  /** Refusals the next call of the same tool on the same file corrected. */
  corrected: number;
  /** corrected / refused, in percent; null without refusals. */
  correctedPercent: number | null;
  gaveUp: number;
  warned: number;
  requested: number;
  listed: number;
  leftOut: number;
  verify: number;
  /** The latest event of the rule in the period, as an ISO time; null for a known rule with none. */
  lastSeen: string | null;
}

export interface RuleTally {
  rule: string;
  scope?: RuleScope;
  source?: string;
  pack?: string;
  /** When the scope, source and pack above were seen: the latest event's win. */
  describedAt: number;
  sessions: Set<string>;
  counts: Record<CountedKind, number>;
  tokens: number;
  lastAt: number;
}

type CountedKind = Exclude<RecordEvent["kind"], "tool-calls">;

const noCounts = (): Record<CountedKind, number> => ({
  delivered: 0,
  listed: 0,
  "left-out": 0,
  requested: 0,
  refused: 0,
  warned: 0,
  corrected: 0,
  "gave-up": 0,
  verify: 0,
});

/** Adds an event that names a rule to its tally. */
export function tallyEvent(tallies: Map<string, RuleTally>, rule: string, event: RecordEvent): void {
  let tally = tallies.get(rule);
  if (tally === undefined) {
    tally = { rule, describedAt: -Infinity, sessions: new Set(), counts: noCounts(), tokens: 0, lastAt: -Infinity };
    tallies.set(rule, tally);
  }
  const kind = event.kind as CountedKind;
  tally.counts[kind]++;
  if (kind === "delivered") tally.tokens += event.tokens ?? 0;
  if ((kind === "delivered" || kind === "requested") && event.session !== undefined) tally.sessions.add(event.session);
  if (event.at > tally.lastAt) tally.lastAt = event.at;
  if (event.at >= tally.describedAt && (event.scope ?? event.source ?? event.pack) !== undefined) {
    tally.describedAt = event.at;
    tally.scope = event.scope;
    tally.source = event.source;
    tally.pack = event.pack;
  }
}

/** A rule's row: its tally (none: every figure 0), described as the project has it now when it is known. */
export function ruleRow(name: string, tally: RuleTally | undefined, known: KnownRule | undefined): RuleStatsRow {
  const counts = tally?.counts ?? noCounts();
  const sessions = tally?.sessions.size ?? 0;
  const tokens = tally?.tokens ?? 0;
  const described = known ?? tally;
  const row: Pick<RuleStatsRow, "rule" | "scope" | "source" | "pack"> = { rule: name };
  if (described?.scope !== undefined) row.scope = described.scope;
  if (described?.source !== undefined) row.source = described.source;
  if (described?.pack !== undefined) row.pack = described.pack;
  return {
    ...row,
    sessions,
    delivered: counts.delivered,
    tokens,
    tokensPerSession: sessions === 0 ? 0 : Math.round(tokens / sessions),
    refused: counts.refused,
    corrected: counts.corrected,
    correctedPercent: counts.refused === 0 ? null : Math.round((counts.corrected / counts.refused) * 100),
    gaveUp: counts["gave-up"],
    warned: counts.warned,
    requested: counts.requested,
    listed: counts.listed,
    leftOut: counts["left-out"],
    verify: counts.verify,
    lastSeen: tally === undefined || tally.lastAt === -Infinity ? null : new Date(tally.lastAt).toISOString(),
  };
}

/** Most tokens first, then by name. */
export function byTokensThenName(a: RuleStatsRow, b: RuleStatsRow): number {
  return b.tokens - a.tokens || compareText(a.rule, b.rule);
}

export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
