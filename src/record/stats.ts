/**
 * What `opencode-rulebook stats` makes of the record (docs/record.md): per
 * rule, what it cost and how it held, and the sections a user reads at a
 * glance: the costliest rules, those never applied, those broken most by
 * model, and compliance over a session's length. Pure: events in, figures
 * out, in one pass over the events.
 */
import type { RecordEvent } from "./event.js";
import { addCall, complianceThirds, type SessionCalls, type Third } from "./stats-compliance.js";
import {
  byTokensThenName,
  compareText,
  type KnownRule,
  ruleRow,
  type RuleStatsRow,
  type RuleTally,
  tallyEvent,
} from "./stats-rules.js";

export interface StatsFilter {
  /** Events at or after, in milliseconds since the epoch. */
  since?: number;
  rule?: string;
  /** `provider/model`, or the model without its provider. */
  model?: string;
  agent?: string;
}

export interface RecordStats {
  /** The period's start, as an ISO time; null for the whole record. */
  since: string | null;
  /** Events in the period (after every filter). */
  events: number;
  /** Distinct sessions in the period. */
  sessions: number;
  toolCalls: number;
  /** Most tokens first, then by name. */
  rules: RuleStatsRow[];
  costliest: { rule: string; tokens: number; tokensPerSession: number }[];
  /** Rules not delivered in the period, and the sessions that is. */
  neverApplied: { rules: string[]; sessions: number };
  brokenByModel: { model: string; rule: string; refused: number; warned: number }[];
  compliance: { thirds: [Third, Third, Third] };
}

const COSTLIEST = 5;
const BROKEN_BY_MODEL = 10;
/** A refused or warned event without a model (a host that did not say). */
const UNKNOWN_MODEL = "unknown";

/**
 * `known`: the rules the project has now; "never applied" names those not delivered in the period. Without it (every
 * project), it names the rules the record mentions that were not delivered in the period.
 */
export function recordStats(
  events: readonly RecordEvent[],
  filter: StatsFilter,
  known?: readonly KnownRule[],
): RecordStats {
  const kept = keptBy(filter);
  const tallies = new Map<string, RuleTally>();
  const sessions = new Set<string>();
  const sessionCalls = new Map<string, SessionCalls>();
  const broken = new Map<string, { model: string; rule: string; refused: number; warned: number }>();
  // Without `known`, the rules the whole record mentions (any period, model or agent) are the ones to account for.
  const mentioned = known === undefined ? new Set<string>() : undefined;
  /** Each session's count of calls before the period: the calls in it are those counted since. */
  const before = new Map<string, number>();
  let count = 0;
  for (const event of events) {
    const rule = event.rule;
    if (mentioned !== undefined && rule !== undefined && (filter.rule === undefined || rule === filter.rule))
      mentioned.add(rule);
    if (!kept(event)) {
      if (
        event.kind === "tool-calls" &&
        event.session !== undefined &&
        filter.since !== undefined &&
        event.at < filter.since
      )
        before.set(event.session, Math.max(before.get(event.session) ?? 0, event.call ?? 0));
      continue;
    }
    count++;
    if (event.session !== undefined) sessions.add(event.session);
    if (event.kind === "tool-calls") {
      addCall(sessionCalls, event);
      continue;
    }
    if (rule === undefined) continue;
    tallyEvent(tallies, rule, event);
    if (event.kind === "refused") addCall(sessionCalls, event);
    if (event.kind === "refused" || event.kind === "warned") {
      const model = event.model ?? UNKNOWN_MODEL;
      const key = `${model}\0${rule}`;
      let entry = broken.get(key);
      if (entry === undefined) {
        entry = { model, rule, refused: 0, warned: 0 };
        broken.set(key, entry);
      }
      entry[event.kind]++;
    }
  }

  const knownByName = new Map<string, KnownRule>();
  for (const rule of known ?? [])
    if (filter.rule === undefined || rule.name === filter.rule) knownByName.set(rule.name, rule);
  const accounted = mentioned ?? new Set(knownByName.keys());
  const names = new Set([...tallies.keys(), ...accounted]);
  const rules = [...names]
    .map((name) => ruleRow(name, tallies.get(name), knownByName.get(name)))
    .sort(byTokensThenName);
  const delivered = new Set(rules.filter((row) => row.delivered > 0).map((row) => row.rule));
  let toolCalls = 0;
  for (const [session, { length }] of sessionCalls) toolCalls += Math.max(0, length - (before.get(session) ?? 0));
  return {
    since: filter.since === undefined ? null : new Date(filter.since).toISOString(),
    events: count,
    sessions: sessions.size,
    toolCalls,
    rules,
    costliest: rules
      .filter((row) => row.tokens > 0)
      .slice(0, COSTLIEST)
      .map(({ rule, tokens, tokensPerSession }) => ({ rule, tokens, tokensPerSession })),
    neverApplied: {
      rules: [...accounted].filter((name) => !delivered.has(name)).sort(compareText),
      sessions: sessions.size,
    },
    brokenByModel: [...broken.values()]
      .sort(
        (a, b) =>
          b.refused + b.warned - (a.refused + a.warned) ||
          b.refused - a.refused ||
          compareText(a.model, b.model) ||
          compareText(a.rule, b.rule),
      )
      .slice(0, BROKEN_BY_MODEL),
    compliance: { thirds: complianceThirds(sessionCalls, before) },
  };
}

/** The filter as a test of one event. A tool call names no rule: it is kept under `--rule`, as the measure. */
function keptBy(filter: StatsFilter): (event: RecordEvent) => boolean {
  const { since, rule, model, agent } = filter;
  return (event) =>
    (since === undefined || event.at >= since) &&
    (rule === undefined || event.rule === rule || event.kind === "tool-calls") &&
    (agent === undefined || event.agent === agent) &&
    (model === undefined || (event.model !== undefined && modelMatches(event.model, model)));
}

/** `anthropic/claude-x` is matched by itself or by `claude-x` (the part after the provider). */
export function modelMatches(eventModel: string, wanted: string): boolean {
  if (eventModel === wanted) return true;
  const slash = eventModel.indexOf("/");
  return slash >= 0 && eventModel.slice(slash + 1) === wanted;
}
