/**
 * Why a rule applies, as a value. `whyRuleApplies` (active.ts) makes it, the
 * engine records it for the session, and `reasonText` is its one wording for
 * the debug log and the session report; `explain` words it its own way.
 */

/** A file of the session that one of the rule's globs matched. */
export interface FileMatch {
  kind: "file";
  /** Project-relative POSIX path (absolute outside the project). */
  file: string;
  glob: string;
}

/** One of the rule's keywords, a whole word of the user's prompt. */
export interface KeywordMatch {
  kind: "keyword";
  keyword: string;
}

/** A file of the session whose text (as a tool brought it in) holds a match for one of the rule's content patterns. */
export interface ContentMatch {
  kind: "content";
  file: string;
  /** The pattern as written. */
  pattern: string;
}

/** A condition of a conditional rule (`globs`, `keywords`, `fileContains`) that holds. */
export type ConditionMet = FileMatch | KeywordMatch | ContentMatch;

/** One condition in words: `file src/app.ts matched src/**\/*.ts`, `keyword "deploy" in the prompt`, `file src/a.ts contains "TODO"`. */
export function conditionText(condition: ConditionMet): string {
  switch (condition.kind) {
    case "file":
      return `file ${condition.file} matched ${condition.glob}`;
    case "keyword":
      return `keyword "${condition.keyword}" in the prompt`;
    case "content":
      return `file ${condition.file} contains ${JSON.stringify(condition.pattern)}`;
  }
}

export type ActivationReason =
  /** No condition, or `alwaysApply: true`. */
  | { kind: "always" }
  /** `@name` in the prompt; `rule` is the name. */
  | { kind: "mention"; rule: string }
  /** The rule's conditions that hold, in order: the file match, the keyword, then the content. Never empty. */
  | { kind: "conditions"; met: readonly [ConditionMet, ...ConditionMet[]] }
  /** The model read the rule with the `rule` tool. */
  | { kind: "rule-tool" }
  /** An on-request rule given whole: the host offers the model no `rule` tool to read it with. */
  | { kind: "on-request" }
  /** A tool call broke the rule: refused (`block`) or let run with the rule in its result (`warn`). */
  | EnforcedReason;

/** The call that broke a rule that forbids: the tool, and the file it wrote (none for a command). */
export interface EnforcedReason {
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
