/**
 * One line of the record of what the rules did (docs/record.md): a thing the
 * plugin did with a rule in a session, or a finding of `verify`. It names
 * rules, files, tools and patterns, never the text of a file, a prompt, a
 * command or the line that broke a rule: a user may share the record
 * without sharing code.
 */
import type { RuleScope } from "../rule/rule.js";

/** The version of the line's shape; a reader skips lines of a version it does not know. */
export const RECORD_VERSION = 1;

export type RecordKind =
  /** The rule's text went into the model's context. */
  | "delivered"
  /** An on-request rule was listed by its name and description. */
  | "listed"
  /** An active rule was left out of a message for the budget. */
  | "left-out"
  /** The model read the rule with the `rule` tool. */
  | "requested"
  /** A call that broke the rule was refused. */
  | "refused"
  /** A call that broke the rule ran, with the rule in its result. */
  | "warned"
  /** After a refusal, the next call of the same tool on the same file (or the next command) went through. */
  | "corrected"
  /** After a refusal, no call went through before the turn ended. */
  | "gave-up"
  /** `verify` found a change that breaks the rule. */
  | "verify"
  /**
   * The session has proposed `call` tool calls so far (no rule): noted when a turn ends and every hundred calls, the
   * measure refusals per call are counted against.
   */
  | "tool-calls";

export interface RecordEvent {
  v: typeof RECORD_VERSION;
  /** When, in milliseconds since the epoch. */
  at: number;
  kind: RecordKind;
  /** The project's root folder. */
  project: string;
  /** The host's session id; absent for `verify`. */
  session?: string;
  agent?: string;
  /** `provider/model`. */
  model?: string;
  /** The rule's name; absent for `tool-calls`. */
  rule?: string;
  scope?: RuleScope;
  /** The rule file, as people read it (`~/…` or project-relative). */
  source?: string;
  /** The pack the rule came from, as people read it (`@acme/rules@2.1.0`). */
  pack?: string;
  /** The rule's size in the model's context, estimated (`render/tokens.ts`). */
  tokens?: number;
  /**
   * `delivered`: what brought it: the session's start (`session-start`), a compaction's re-delivery (`compaction`), one
   * of its conditions (the kind's name: `file`, `keyword`, `content`), a scope that came to hold (`agent`, `model`,
   * `branch`), its file added or changed (`changed`), an `@` mention (`mention`), the `rule` tool (`rule-tool`), an
   * on-request rule given whole without the tool (`on-request`).
   */
  trigger?: string;
  /** The tool of the call (`refused`, `warned`, `corrected`, `gave-up`). */
  tool?: string;
  /** `refused`, `warned`, `verify`: the forbidden pattern, as the rule writes it. */
  pattern?: string;
  /** The file the call wrote or the finding is in, project-relative. */
  file?: string;
  /** The line of `file` that broke the rule. */
  line?: number;
  /** `refused`, `warned`: the call's number in its session, from 1; `tool-calls`: how many calls so far. */
  call?: number;
}
