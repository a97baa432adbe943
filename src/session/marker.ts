/**
 * The plugin's mark on a rules message it adds to a session: the rules it
 * carries and why, what it lists or leaves out, and, for a silent prompt,
 * the delivery attempt it was. A host stores it with the message (OpenCode
 * 1: in the part's metadata, or the tool result's) so the plugin can
 * recognise its own messages in a session's history, and the Rules panel
 * can show what the model holds, and what it costs, without the rules loaded.
 */
import type { ScopeMatch } from "../conditions/list.js";
import type { ComposedMessage } from "../render/compose.js";
import type { ActivationReason } from "../select/reasons.js";
import { isScoped } from "../select/scope.js";
import { originText } from "../rule/origin.js";
import { ruleTokens } from "../render/tokens.js";
import { isCount, isCountPerRule, isNameList, isPairedWith, isStoredWhy } from "./marker-shapes.js";

/** The key the marker is stored under in a message's (or part's) metadata, on every host. */
export const MARKER_KEY = "opencode-rulebook";

/** Why a rule the message carries applies, and for which agent or model when it has a scope. */
export interface RuleWhy {
  reason: ActivationReason;
  /** What of its scope the session met, by fact (`{agent: "plan"}`), as every version stored it. */
  scope?: ScopeMatch;
  /** Where the rule comes from when not an ordinary rules folder: `managed`, `pack @acme/rules@2.1.0` (rule/origin.ts). */
  from?: string;
}

export interface RulesMarker {
  kind: "rules";
  /** Names of the rules the message carries. */
  rules: string[];
  /** What brought it (`Trigger`), in host-neutral words (earlier versions stored a host's hook names: its adapter reads them). */
  trigger: string;
  /** One id per delivery attempt: after a timeout, the history shows whether the attempt was stored after all. */
  delivery?: string;
  /** On-request rules for some agents or models it lists; rules it says do not apply now, and apply again (absent when none). */
  listed?: string[];
  paused?: string[];
  resumed?: string[];
  /** Why each rule in `rules` applies, in the same order (absent in markers written before the panel). */
  why?: RuleWhy[];
  /**
   * What each rule in `rules` costs in the window, estimated (`ruleTokens`), in the same order (absent in earlier
   * markers).
   */
  tokens?: number[];
  /** Every on-request rule the message lists by name. */
  offered?: string[];
  /** Active rules the budget left out (the first `MAX_LEFT_OUT_NAMES`), and how many there were when more. */
  leftOut?: string[];
  leftOutCount?: number;
  /**
   * Active rules the message did not give, their text being another rule's (the first `MAX_LEFT_OUT_NAMES`), each with
   * that rule's name in `sameTextAs`, in the same order, and how many there were when more (absent in earlier markers).
   */
  sameText?: string[];
  sameTextAs?: string[];
  sameTextCount?: number;
  /** Rules whose deletion the message announces. */
  removed?: string[];
  /** Warnings about the rule files when the message was composed. */
  warnings?: number;
  /** Rules a less trusted rule of their name shadows whose forbids still hold, when the message was composed. */
  held?: string[];
  /** Rules that forbid which the call whose result this is weakened (it wrote their files). */
  weakened?: string[];
}

/** A repository may hold thousands of rules: a marker names this many left out (or same text), counts the rest. */
const MAX_LEFT_OUT_NAMES = 50;

interface MarkerContext {
  delivery?: string;
  /** Warnings of the rule set the message was composed from. */
  warnings?: number;
  /** Its shadowed rules whose forbids hold. */
  held?: readonly string[];
}

export function markerFor(composed: ComposedMessage, trigger: Trigger, context: MarkerContext = {}): RulesMarker {
  const listed = composed.onRequest.filter(isScoped).map((rule) => rule.name);
  const leftOut = composed.leftOut.map((rule) => rule.name);
  return {
    kind: "rules",
    rules: composed.included.map(({ rule }) => rule.name),
    trigger,
    ...(context.delivery === undefined ? {} : { delivery: context.delivery }),
    ...(listed.length > 0 ? { listed } : {}),
    ...(composed.paused.length > 0 ? { paused: composed.paused } : {}),
    ...(composed.resumed.length > 0 ? { resumed: composed.resumed } : {}),
    why: composed.included.map(({ rule, reason, scope }) => whyOf(reason, scope, originText(rule))),
    tokens: composed.included.map(({ rule }) => ruleTokens(rule)),
    ...(composed.onRequest.length > 0 ? { offered: composed.onRequest.map((rule) => rule.name) } : {}),
    ...(leftOut.length > 0 ? { leftOut: leftOut.slice(0, MAX_LEFT_OUT_NAMES) } : {}),
    ...(leftOut.length > MAX_LEFT_OUT_NAMES ? { leftOutCount: leftOut.length } : {}),
    ...sameTextOf(composed),
    ...(composed.removed.length > 0 ? { removed: composed.removed } : {}),
    ...(context.warnings ? { warnings: context.warnings } : {}),
    ...(context.held && context.held.length > 0 ? { held: [...context.held] } : {}),
  };
}

/** The copies a message did not give, by name, with the rule whose text they are: bounded, the rest counted. */
function sameTextOf({ sameText }: ComposedMessage): Pick<RulesMarker, "sameText" | "sameTextAs" | "sameTextCount"> {
  if (sameText.length === 0) return {};
  const named = sameText.slice(0, MAX_LEFT_OUT_NAMES);
  return {
    sameText: named.map(({ rule }) => rule.name),
    sameTextAs: named.map(({ as }) => as.name),
    ...(sameText.length > MAX_LEFT_OUT_NAMES ? { sameTextCount: sameText.length } : {}),
  };
}

const whyOf = (reason: ActivationReason, scope: ScopeMatch | undefined, from: string | undefined): RuleWhy => ({
  reason,
  ...(scope === undefined ? {} : { scope }),
  ...(from === undefined ? {} : { from }),
});

/** The trigger of the plugin's `rule` tool answer: a rule read by name, not a composed message. */
const RULE_READ_TRIGGER = "rule";
/** The triggers of a refused call's rules, and of a call's `warn` rules: the rules it broke, not a composed message. */
const BLOCKED_TRIGGER = "blocked";
const WARNED_TRIGGER = "warned";

/** A composed rules message (it names the rules the budget left out, and the rule set's warnings), not a rule given on its own. */
export const isComposed = (marker: Pick<RulesMarker, "trigger">): boolean =>
  marker.trigger !== RULE_READ_TRIGGER && marker.trigger !== BLOCKED_TRIGGER && marker.trigger !== WARNED_TRIGGER;

/** The silent rules messages: a new session's, and a compaction's new window's. */
export type SilentTrigger = "new-session" | "compaction";

/**
 * What brought a rules message: a silent delivery, the user's message (the
 * session's first delivery, or rules it activated), the `rule` tool, or the
 * name of the tool whose result carried them.
 */
export type Trigger =
  | SilentTrigger
  | "first-message"
  | "message"
  | typeof RULE_READ_TRIGGER
  | typeof BLOCKED_TRIGGER
  | typeof WARNED_TRIGGER
  | (string & {});

/** The marker of the rules a call broke (`mode`: refused, or let run with a warning), each with the file it wrote, if any. */
export function enforcedMarker(
  broken: ReadonlyArray<{ name: string; file?: string; tokens?: number }>,
  mode: "block" | "warn",
  tool: string,
): RulesMarker {
  const tokens = broken.map((rule) => rule.tokens);
  return {
    kind: "rules",
    rules: broken.map(({ name }) => name),
    trigger: mode === "block" ? BLOCKED_TRIGGER : WARNED_TRIGGER,
    why: broken.map(({ file }) => ({
      reason: { kind: "enforced", mode, tool, ...(file === undefined ? {} : { file }) },
    })),
    // The rules' cost in the window, when every one is known (a host's own record of a refusal names rules only).
    ...(tokens.every((size) => size !== undefined) ? { tokens: tokens as number[] } : {}),
  };
}

/** The marker of a call's note that it weakened rules that forbid: it carries no rule text. */
export const weakenedMarker = (names: readonly string[]): RulesMarker => ({
  kind: "rules",
  rules: [],
  trigger: WARNED_TRIGGER,
  weakened: [...names],
});

/** The plugin's `rule` tool answer: the one rule the model read by name, and its cost when the caller knows it. */
export const ruleReadMarker = (name: string, tokens?: number): RulesMarker => ({
  kind: "rules",
  rules: [name],
  trigger: RULE_READ_TRIGGER,
  why: [{ reason: { kind: "rule-tool" } }],
  ...(tokens === undefined ? {} : { tokens: [tokens] }),
});

const NAME_LISTS = [
  "listed",
  "paused",
  "resumed",
  "offered",
  "leftOut",
  "sameText",
  "sameTextAs",
  "removed",
  "held",
  "weakened",
] as const;

/**
 * The marker in a stored value, if it is the plugin's (anything else, whatever
 * its shape, is not). Stored values outlive versions and may be corrupted:
 * a field of another shape is left out, the rest kept.
 */
export function asMarker(value: unknown): RulesMarker | undefined {
  if (
    !value ||
    typeof value !== "object" ||
    (value as RulesMarker).kind !== "rules" ||
    !isNameList((value as RulesMarker).rules)
  )
    return undefined;
  const marker = value as RulesMarker;
  const bad = [
    ...NAME_LISTS.filter((key) => marker[key] !== undefined && !isNameList(marker[key])),
    ...(marker.why !== undefined && !(Array.isArray(marker.why) && marker.why.every(isStoredWhy))
      ? ["why" as const]
      : []),
    // One count per rule, or none: a figure that may belong to another rule is worse than no figure.
    ...(marker.tokens !== undefined && !isCountPerRule(marker.tokens, marker.rules.length) ? ["tokens" as const] : []),
    ...(marker.warnings !== undefined && !isCount(marker.warnings) ? ["warnings" as const] : []),
    ...(marker.leftOutCount !== undefined && !isCount(marker.leftOutCount) ? ["leftOutCount" as const] : []),
    ...(marker.sameTextCount !== undefined && !isCount(marker.sameTextCount) ? ["sameTextCount" as const] : []),
    // Each copy with the rule it is the text of, or neither list: a name paired with another's rule is worse than none.
    ...(isPairedWith(marker.sameText, marker.sameTextAs) ? [] : (["sameText", "sameTextAs"] as const)),
  ];
  if (bad.length === 0) return marker;
  const kept: Record<string, unknown> = { ...marker };
  for (const key of bad) delete kept[key];
  return kept as unknown as RulesMarker;
}
