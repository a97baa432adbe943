/**
 * One session as the plugin knows it: a value (`SessionState`) and what it
 * is made of. `step(state, event)` (`step.ts`) is pure and moves it by the
 * events `events.ts` names, asking for effects; the engine carries out the
 * effects (the host's I/O, the disk, the log) and reports what came of them
 * as the next event.
 *
 * A host call is a short conversation: a user's turn may ask to read the
 * window (a compaction may have started it again), then to check which paths
 * its words name exist, then answers with the rules its message carries. Each
 * result event carries what its conversation needs to go on (`Turn`,
 * `ReadPurpose`), so two conversations of one session (a silent delivery and
 * a user's turn) interleave as the host's calls do, each step reading the
 * session as it is then.
 */
import type { SessionFacts } from "../conditions/list.js";
import type { UncheckedChange } from "../enforce/checked-changes.js";
import type { PlacedCall } from "../enforce/proposed.js";
import type { EnforceOption, Forbidding } from "../enforce/violations.js";
import type { WeakenedRule } from "../enforce/weakened.js";
import type { ComposedMessage } from "../render/compose.js";
import type { ActivationReason } from "../select/reasons.js";
import type { ModelRef } from "../conditions/models.js";
import type { Rule } from "../rule/rule.js";
import { NO_ACTIVATION, type Activation } from "./activation.js";
import type { RulesMarker, SilentTrigger } from "./marker.js";
import type { FailedTry, SilentDelivery } from "./silent-delivery.js";
import { NEW_WINDOW, type WindowState } from "./window-state.js";

export interface SessionState {
  /** The agent and model the user last chose: a prompt without them would switch the session's agent. */
  readonly agent?: string;
  readonly model?: ModelRef;
  /** The facts the plugin reads from the project itself (the repository's branch), as last read. */
  readonly observed?: SessionFacts;
  /** What the model's window holds of the rules, and the silent prompts whose fate is unknown (`window-state.ts`). */
  readonly window: WindowState;
  readonly activation: Activation;
  /**
   * What the last look saw when it found nothing to send: while none of it changes, the next look finds nothing again
   * without composing.
   */
  readonly quiet?: Readonly<Record<string, unknown>>;
  /**
   * Rules a `warn` rule puts into the result of a call that ran, by the call's id, until its result comes
   * (`MAX_WARNED_CALLS` at most).
   */
  readonly warned?: ReadonlyMap<string, RulesAnswer>;
  /** The silent delivery under way, if any (`silent-delivery.ts`). */
  readonly silent?: SilentDelivery;
  /** Tool calls placed before they ran, by the host's id, kept until their result comes (`placed-call.ts`). */
  readonly calls?: ReadonlyMap<string, PlacedCall>;
  /** How many tool calls the session proposed: each call's number, counted from 1 (`call-count.ts`). */
  readonly toolCalls?: number;
  /** The count of tool calls last noted. */
  readonly callsNoted?: number;
  /** The rules the budget left out of the current window (by its compaction count), each counted once there. */
  readonly leftOut?: { readonly window: number; readonly names: ReadonlySet<string> };
  /** Refused calls whose correction is awaited until the turn ends (`corrections.ts`). */
  readonly refused?: readonly AwaitedCorrection[];
}

export const NEW_SESSION: SessionState = { window: NEW_WINDOW, activation: NO_ACTIVATION };

/** The rules in effect, indexed once per load, as the model composes from them. */
export interface RuleSet {
  readonly list: readonly Rule[];
  readonly byName: ReadonlyMap<string, Rule>;
  readonly names: ReadonlySet<string>;
  /** How many warnings loading them gave (the Rules panel counts them). */
  readonly warnings: number;
  /** The options' budget for one rules message. */
  readonly maxMessageBytes?: number;
  /**
   * False when the host offers the model no `rule` tool: on-request rules are given whole (`select/window-needs.ts`).
   */
  readonly ruleTool?: boolean;
  /**
   * The rules whose forbids hold: `list` and the shadowed rules more trusted than what shadows them (absent: `list`
   * alone).
   */
  readonly forbidding?: Forbidding;
  /**
   * The user's `enforce` option: `warn` makes every block a warning, `off` holds managed rules only (absent: `block`).
   */
  readonly enforce?: EnforceOption;
  /** Some rule has content conditions: the text a tool call brings in is looked at. */
  readonly contentRules?: boolean;
}

/** What a session's current context window holds, as the host's history (or its own record) shows it. */
export interface WindowView {
  /** The plugin's rules messages in the window (hidden ones left out), oldest first, with when each was stored. */
  rules: Array<{ marker: RulesMarker; created?: number }>;
  /** The agent and model of the user's last message. */
  choice: { agent?: string; model?: ModelRef };
  /** The host's id of the compaction that began the window, if one did. */
  windowStart?: string;
  /** A later compaction still summarising, if any: its window starts when its summary is written. */
  compactionUnderway?: string;
  /**
   * The window holds messages after the compaction's summary besides the plugin's rules: the model has read past the
   * point where they would go.
   */
  movedOn: boolean;
}

/** A user's turn under way: what its message says, and when it is dated. */
export interface Turn {
  readonly prompt: string;
  /** Files it attached, in working-set form. */
  readonly files: readonly string[];
  /** Paths its words name, not checked yet, in working-set form with the absolute path to check. */
  readonly named: ReadonlyArray<{ path: string; absolute: string }>;
  /**
   * When the host dates the message, and the later date it must take to sort after the rules (worked out once the
   * window is known).
   */
  readonly created: number;
  readonly date?: number;
}

/** Why the window is read: the conversation that goes on with what it holds. */
export type ReadPurpose =
  | { readonly kind: "silent"; readonly trigger: SilentTrigger; readonly pending: readonly string[] }
  | { readonly kind: "join-compaction"; readonly turn: Turn }
  | { readonly kind: "turn"; readonly turn: Turn }
  /** `compactions`: the session's count when it was asked; a compaction since makes what it read stale. */
  | { readonly kind: "compaction-ended"; readonly compactions: number };

/** A refused call waiting for its correction: its tool, its file (none for a command), the rules it broke. */
export interface AwaitedCorrection {
  readonly tool: string;
  readonly file?: string;
  readonly rules: readonly string[];
}

/** What happened in a step, typed: the log words what a person reads, the record keeps what it counts. */
export type Note =
  | { kind: "activated"; rule: string; reason: ActivationReason }
  | {
      kind: "delivered";
      rules: readonly string[];
      how: SilentTrigger | "message" | "tool-result";
      tool?: string;
      /** What the message carried, listed and left out. */
      composed: ComposedMessage;
      /** What it opens: the session's first rules, a compaction's window, or neither (rules added to a window). */
      opens?: SilentTrigger;
      /** Rules this message activated for the session (the rest came again, or always apply). */
      fresh: readonly string[];
      /** Rules the budget left out of this window for the first time (named again in later messages, not counted). */
      leftOut: readonly string[];
      /** Rules given now that the budget left out of an earlier message of this window. */
      roomMade: readonly string[];
    }
  /** The session has proposed `calls` tool calls so far (noted when a turn ends, and every hundred calls). */
  | { kind: "tool-calls"; calls: number }
  /** The model read a rule with the `rule` tool. */
  | { kind: "rule-requested"; rule: string }
  /**
   * After refusals of a `tool` call on `file` (none: a command), the next such call went through (`corrected`), or
   * none did before the turn ended (`gave-up`); `rules`, the rules the refusals named.
   */
  | { kind: "corrected" | "gave-up"; tool: string; file?: string; rules: readonly string[] }
  | { kind: "went-on-before-rules" }
  /** A call broke rules that forbid: refused (`block`), or let run with the rules in its result (`warn`). */
  | {
      kind: "enforced";
      mode: "block" | "warn";
      tool: string;
      /** The call's number in the session. */
      call?: number;
      /** The rules whose text went with the refusal or warning (the window did not hold them as they are). */
      given?: readonly string[];
      broken: ReadonlyArray<{ rule: string; pattern: string; file?: string; lineNumber?: number }>;
    }
  /** A call that ran weakened rules that forbid (rule files stay writable): the user is told. */
  | { kind: "weakened"; tool: string; weakened: readonly WeakenedRule[] }
  /** The window could not be read before rules went with a user's message, or (`silent`) in a silent prompt. */
  | { kind: "history-unreadable"; error: string; silent?: boolean }
  /**
   * A try of the silent delivery failed: tried again after a backoff, or (`final`) left for the session's next event.
   */
  | { kind: "delivery-failed"; trigger: SilentTrigger; attempt: number; final: boolean; failure: FailedTry }
  /** An attachment of a user's message could not be read; the rest of the message was. */
  | { kind: "unreadable-part"; error: string }
  /** A file change of a call the check could not read the file of. */
  | { kind: "unchecked-change"; tool: string; change: UncheckedChange }
  /**
   * The check of a call ran out of time: what it had not matched was let through; `unreached`, the rules not matched
   * against all of it.
   */
  | { kind: "check-incomplete"; tool: string; unreached: readonly Rule[] }
  /** Whether a call's writes of rule files weaken a rule that forbids could not be told. */
  | { kind: "weakening-unknown"; error: string }
  /** The text a call brought in was not all looked at for content conditions in time. */
  | { kind: "content-unscanned"; tool: string };

/** Rules for the host to give with the message at hand, and the marker that names them. */
export interface RulesAnswer {
  text: string;
  marker: RulesMarker;
}
