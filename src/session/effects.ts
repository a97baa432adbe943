/**
 * What each step of a session asks the engine to do (`Effect`), and a step
 * itself: the next state and its effects. Each effect the engine carries out
 * comes back as the event its comment names (`events.ts`).
 */
import type { SessionFacts } from "../conditions/list.js";
import type { ModelRef } from "../conditions/models.js";
import type { CheckedChange, EnforceOption, Forbidding } from "../enforce/violations.js";
import type { RuleFileWrite } from "../enforce/checked-changes.js";
import type { ComposedMessage } from "../render/compose.js";
import type { CallToCheck, CallUnderCheck, CountedCall, FinishedCall } from "./events.js";
import type { RulesMarker, SilentTrigger } from "./marker.js";
import type { Note, ReadPurpose, RulesAnswer, SessionState, Turn } from "./session.js";

/**
 * What waits for the silent delivery under way: a user's turn (bounded), the host going on after a compaction
 * (bounded), or the call that asked for it (to its end).
 */
type DeliveryWaiter =
  | { readonly kind: "turn"; readonly turn: Turn }
  | { readonly kind: "went-on" }
  | { readonly kind: "asker" };

export type Effect =
  | { type: "note"; note: Note }
  /** Read what the window holds; answer with `window-seen`. */
  | { type: "read-window"; scope: "current" | "since-compaction"; purpose: ReadPurpose }
  /**
   * Wait for the silent delivery under way (bounded for a turn and for the host going on); answer a turn with
   * `turn-may-go-on`, the host with `went-on`.
   */
  | { type: "await-delivery"; waiter: DeliveryWaiter }
  /** Check which paths exist (bounded); answer with `paths-found`. */
  | { type: "check-paths"; turn: Turn }
  /**
   * Ask for the session's silent delivery, after the grace period a new session gives its first message when `grace`;
   * answer with `delivery-asked`.
   */
  | { type: "deliver-silently"; trigger: SilentTrigger; grace?: boolean; thenWentOn?: boolean }
  /**
   * Start the silent delivery as a conversation of its own, beginning with `silent-due`; `await-delivery` waits for it.
   */
  | { type: "start-delivery"; trigger: SilentTrigger }
  /**
   * Wait `afterMs` (a backoff, cut short when the plugin stops; 0: none), then answer with `silent-due`: the delivery's
   * next try.
   */
  | { type: "try-delivery"; trigger: SilentTrigger; afterMs: number }
  /** Store a silent rules message; answer with `rules-sent`, or `rules-not-sent`. */
  | {
      type: "send-rules";
      delivery: string;
      composed: ComposedMessage;
      marker: RulesMarker;
      trigger: SilentTrigger;
      compactions: number;
      agent?: string;
      model?: ModelRef;
    }
  /**
   * Start the check's clock; find the rule file each change writes, as written or through symlinks (bounded); answer
   * with `rule-files-found`.
   */
  | { type: "find-rule-files"; check: CallToCheck }
  /** Read these files (bounded by the check's deadline), in order; answer with `files-read`. */
  | { type: "read-files"; check: CallUnderCheck; reads: ReadonlyArray<{ change: number; path: string }> }
  /**
   * Match what the call adds against the rules that forbid, and read its writes of rule files for the rules they weaken
   * (bounded); answer with `call-checked`.
   */
  | {
      type: "match-call";
      tool: string;
      callID?: string;
      counted: CountedCall;
      changes: readonly CheckedChange[];
      ruleWrites: readonly RuleFileWrite[];
      forbidding: Forbidding;
      as: SessionFacts;
      option: Exclude<EnforceOption, "off">;
      deadline: number;
    }
  /** Match the text a finished call brought in against content conditions (bounded); answer with `contents-scanned`. */
  | {
      type: "scan-contents";
      finished: FinishedCall;
      texts: ReadonlyArray<{ file: string; text: string }>;
      known: SessionState["activation"]["contentMatches"];
    }
  /** The host's answer to the call at hand. */
  | { type: "answer"; rules?: RulesAnswer; created?: number; hide?: boolean; refusal?: RulesAnswer };

export interface Step {
  state: SessionState;
  effects: Effect[];
}
