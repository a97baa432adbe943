/**
 * What moves a session (`SessionEvent`) and what each move asks the engine
 * to do (`Effect`): the host's calls come in as events; each effect the
 * engine carries out comes back as the event its comment names, with what
 * its conversation needs to go on (`Turn`, `ReadPurpose`, `CallUnderCheck`,
 * `FinishedCall`). A step that asks for nothing more ends the conversation.
 */
import type { SessionFacts } from "../conditions/list.js";
import type { OnDisk, RuleFileWrite } from "../enforce/checked-changes.js";
import type { PlacedCall, ToolCall } from "../enforce/proposed.js";
import type { CheckedChange, EnforceOption, Forbidding, Violation } from "../enforce/violations.js";
import type { WeakenedRule } from "../enforce/weakened.js";
import type { ComposedMessage } from "../render/compose.js";
import type { Rule } from "../rule/rule.js";
import type { ContentHit } from "../select/content.js";
import type { ModelRef } from "../conditions/models.js";
import type { RulesMarker, SilentTrigger } from "./marker.js";
import type { PathBase } from "./paths.js";
import type { Note, ReadPurpose, RuleSet, RulesAnswer, SessionState, Turn, WindowView } from "./session.js";
import type { RetryPolicy } from "./silent-delivery.js";
import type { WindowEvent } from "./window-state.js";

/**
 * What waits for the silent delivery under way: a user's turn (bounded), the host going on after a compaction
 * (bounded), or the call that asked for it (to its end).
 */
type DeliveryWaiter =
  | { readonly kind: "turn"; readonly turn: Turn }
  | { readonly kind: "went-on" }
  | { readonly kind: "asker" };

/**
 * A tool call to check against the rules that forbid: the rules that hold, and what breaking one meets under the user's
 * option.
 */
interface CallToCheck {
  readonly call: PlacedCall;
  readonly forbidding: Forbidding;
  readonly option: Exclude<EnforceOption, "off">;
}

/** The check under way: what it travels with from effect to event. */
export interface CallUnderCheck extends CallToCheck {
  /** When its time runs out, on the engine's clock (set when the check starts). */
  readonly deadline: number;
  /** Per change of the call, the rule file it writes, as the rule set names it (none: a file that is no rule's). */
  readonly ruleFiles: ReadonlyArray<string | undefined>;
}

/** A finished tool call whose result is being answered: what it named, in working-set form. */
export interface FinishedCall {
  readonly tool: string;
  readonly callID?: string;
  readonly files: readonly string[];
}

/** A file read for a check: for which change of the call, and what it held. */
export interface CheckRead {
  readonly change: number;
  readonly path: string;
  readonly disk: OnDisk;
}

export type SessionEvent =
  | WindowEvent
  /** The host met the session: new, or with a history that may hold its rules (a fork, one from before a restart). */
  | { type: "seen"; ignored: boolean; hasHistory: boolean; agent?: string; model?: ModelRef; rules: RuleSet }
  /** A compaction began: its window starts once its summary is written. */
  | { type: "compaction-began" }
  /**
   * The window restarted, empty, as the host lets the model go on (`now`); `windowStart` is the host's id of its start,
   * when it gives one.
   */
  | { type: "window-restarted"; windowStart?: string; agent?: string; model?: ModelRef; now: number; rules: RuleSet }
  /** The host wrote what the model reads next after a restarted window: rules not stored by now would land after it. */
  | { type: "went-on" }
  /**
   * The host's own word that a compaction finished (it may come late: after the user's next message went to the model).
   */
  | { type: "compaction-ended"; rules: RuleSet }
  /**
   * A silent delivery is asked for now (a new session's grace period is over); `retry`, the engine's policy for its
   * tries.
   */
  | { type: "delivery-asked"; trigger: SilentTrigger; thenWentOn?: boolean; retry: RetryPolicy }
  /** A try of the silent delivery is due (the first, or one after a failure). */
  | { type: "silent-due"; trigger: SilentTrigger; rules: RuleSet; freshId: string }
  /** A user's message, about to reach the model: its words, the files it attached (paths or `file://` URLs). */
  | {
      type: "user-turn";
      prompt: string;
      attachments: readonly string[];
      created: number;
      agent?: string;
      model?: ModelRef;
      place: PathBase;
      rules: RuleSet;
    }
  /** The silent delivery under way finished, or was waited for long enough. */
  | { type: "turn-may-go-on"; turn: Turn; rules: RuleSet }
  /** A file was touched in no session in particular: the last session working gets it. */
  | { type: "file-touched"; path: string; place: PathBase; rules: RuleSet }
  /**
   * A tool call is about to run: what it names counts, and what it would add is checked against the rules that forbid.
   */
  | { type: "call-proposed"; call: ToolCall; place: PathBase; rules: RuleSet }
  /**
   * Results of a check's effects: which rule files the call writes (`deadline` set), what the files it changes held.
   */
  | { type: "rule-files-found"; check: CallToCheck; deadline: number; ruleFiles: CallUnderCheck["ruleFiles"] }
  | { type: "files-read"; check: CallUnderCheck; read: readonly CheckRead[] }
  /**
   * A tool call about to run was checked against the rules that forbid: the rules it breaks (none: it breaks none),
   * those its writes of rule files weaken, and what the check could not finish.
   */
  | {
      type: "call-checked";
      tool: string;
      callID?: string;
      violations: readonly Violation[];
      weakened?: readonly WeakenedRule[];
      /** The check ran out of time: the rules not matched against all of the call. */
      unreached?: readonly Rule[];
      /** Whether rules were weakened could not be told, and why. */
      weakeningUnknown?: string;
    }
  /**
   * A tool ran. `readCall` reads its arguments, asked only when the session kept nothing of the call before it ran;
   * `listed`, the lines of a listing it gave; `fileText`, the text of the file a read brought in.
   */
  | {
      type: "tool-finished";
      tool: string;
      callID?: string;
      readCall: () => Pick<ToolCall, "files" | "changes">;
      listed?: readonly string[];
      fileText?: () => string;
      place: PathBase;
      rules: RuleSet;
    }
  /** The text a finished call brought in was matched against content conditions (`complete`: all of it in time). */
  | { type: "contents-scanned"; finished: FinishedCall; hits: readonly ContentHit[]; complete: boolean; rules: RuleSet }
  /**
   * The facts the project tells (its branch), read again before a turn, a tool's result or a new session's rules:
   * a change brings the rules that now apply, and says which no longer do, at the next rules message.
   */
  | { type: "facts-observed"; facts: SessionFacts }
  /** The model asked for a rule by name. */
  | { type: "rule-requested"; rule: Rule }
  /** The host stores a rules message of the plugin's, dated `created`. */
  | { type: "own-rules-stored"; delivery?: string; created: number; rules: RuleSet }
  /** The rule files were reloaded; `removed`: rules deleted. */
  | { type: "rules-reloaded"; rules: RuleSet; removed: readonly string[] }
  /** Results of effects. `view` is absent when the window could not be read (`error` says why). */
  | {
      type: "window-seen";
      purpose: ReadPurpose;
      view?: WindowView;
      error?: string;
      rules: RuleSet;
      now: number;
      freshId: string;
    }
  | { type: "paths-found"; turn: Turn; existing: readonly string[]; rules: RuleSet }
  | {
      type: "rules-sent";
      delivery: string;
      created: number;
      composed: ComposedMessage;
      compactions: number;
      trigger: SilentTrigger;
      rules: RuleSet;
    }
  /** The silent prompt was not stored: `refused` by the host's answer, or its outcome unknown (no answer in time). */
  | { type: "rules-not-sent"; delivery: string; trigger: SilentTrigger; error: string; refused: boolean }
  /** The silent delivery's conversation broke off: an error of the plugin's own. */
  | { type: "delivery-broke"; error: string };

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
