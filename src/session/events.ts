/**
 * What moves a session (`SessionEvent`) and what each move asks the engine
 * to do (`Effect`): the host's calls come in as events; each effect the
 * engine carries out comes back as the event its comment names, with what
 * its conversation needs to go on (`Turn`, `ReadPurpose`, `CallUnderCheck`,
 * `FinishedCall`). A step that asks for nothing more ends the conversation.
 */
import type { SessionFacts } from "../conditions/list.js";
import type { OnDisk } from "../enforce/checked-changes.js";
import type { PlacedCall, ToolCall } from "../enforce/proposed.js";
import type { EnforceOption, Forbidding, Violation } from "../enforce/violations.js";
import type { WeakenedRule } from "../enforce/weakened.js";
import type { ComposedMessage } from "../render/compose.js";
import type { Rule } from "../rule/rule.js";
import type { ContentHit } from "../select/content.js";
import type { ModelRef } from "../conditions/models.js";
import type { SilentTrigger } from "./marker.js";
import type { PathBase } from "./paths.js";
import type { ReadPurpose, RuleSet, Turn, WindowView } from "./session.js";
import type { RetryPolicy } from "./silent-delivery.js";
import type { WindowEvent } from "./window-state.js";

/**
 * A tool call to check against the rules that forbid: the rules that hold, and what breaking one meets under the user's
 * option.
 */
export interface CallToCheck {
  readonly call: PlacedCall;
  /** Its number in the session, from 1. */
  readonly number: number;
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

/** A call as the session counts it: its number, from 1, and the files it names (working-set form). */
export interface CountedCall {
  readonly number: number;
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
      /** The call checked: its number in the session, the files it names (absent: unknown). */
      counted?: CountedCall;
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
  /** The session was deleted, or the plugin stops: its turn is over. */
  | { type: "session-ended" }
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
