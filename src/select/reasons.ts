/**
 * Why a rule applies, as a value. `whyRuleApplies` (active.ts) makes it, the
 * engine records it for the session, and `reasonText` is its one wording for
 * the debug log and the session report; `explain` words it its own way.
 */
import { kindOfMet, type ConditionMet } from "../conditions/list.js";

/** One trigger that held in words, as its kind says it: `file src/app.ts matched src/**\/*.ts`, `keyword "deploy" in the prompt`. */
export function conditionText(condition: ConditionMet): string {
  return kindOfMet(condition.kind)?.words.met(condition) ?? condition.kind;
}

export type ActivationReason =
  /** No condition, or `alwaysApply: true`. */
  | { kind: "always" }
  /** `@name` in the prompt; `rule` is the name. */
  | { kind: "mention"; rule: string }
  /** The rule's triggers that hold, in the order of conditions/list.ts (file, keyword, content). Never empty. */
  | { kind: "conditions"; met: readonly [ConditionMet, ...ConditionMet[]] }
  /** The model read the rule with the `rule` tool. */
  | { kind: "rule-tool" }
  /** An on-request rule given whole: the host offers the model no `rule` tool to read it with. */
  | { kind: "on-request" }
  /** A tool call broke the rule: refused (`block`) or let run with the rule in its result (`warn`). */
  | EnforcedReason;

/** The call that broke a rule that forbids: the tool, and the file it wrote (none for a command). */
interface EnforcedReason {
  kind: "enforced";
  mode: "block" | "warn";
  tool: string;
  file?: string;
}

/** The reason in words: `always`, `file src/app.ts matched src/**\/*.ts and keyword "deploy" in the prompt`. */
export function reasonText(reason: ActivationReason): string {
  switch (reason.kind) {
    case "always":
      return "always";
    case "mention":
      return `mention: @${reason.rule} in the prompt`;
    case "conditions":
      return reason.met.map(conditionText).join(" and ");
    case "rule-tool":
      return "read with the rule tool";
    case "on-request":
      return "on request, given whole: no rule tool on this host";
    case "enforced":
      return enforcedText(reason);
  }
}

/** `blocked write src/a.ts`, `blocked bash`, `warned edit src/a.ts`: the call that broke the rule. */
export function enforcedText(reason: EnforcedReason): string {
  return `${reason.mode === "block" ? "blocked" : "warned"} ${reason.tool}${reason.file === undefined ? "" : ` ${reason.file}`}`;
}

/**
 * `same text as style`: a rule that applies whose text a message does not carry under its name, as `list`, `explain`
 * and the Rules panel say it: another rule has the same body, and the model gets (or holds) it once, as that rule
 * (select/same-text.ts). Not a reason of its own: the rule still applies for its reason.
 */
export const sameTextWords = (as: string): string => `same text as ${as}`;
