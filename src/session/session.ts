/**
 * One session as the plugin knows it: a value (`SessionState`), the events
 * that move it, and the effects each move asks for. `step(state, event)`
 * (`step.ts`) is pure; the engine carries out the effects (the host's I/O,
 * the log) and reports what came of them as the next event.
 *
 * A host call is a short conversation: a user's turn may ask to read the
 * window (a compaction may have started it again), then to check which paths
 * its words name exist, then answers with the rules its message carries. Each
 * result event carries what its conversation needs to go on (`Turn`,
 * `ReadPurpose`), so two conversations of one session (a silent delivery and
 * a user's turn) interleave as the host's calls do, each step reading the
 * session as it is then.
 */
import type { Forbidding, Violation } from "../enforce/violations.js";
import type { WeakenedRule } from "../enforce/weakened.js";
import type { ComposedMessage } from "../render/compose.js";
import type { ContentHit } from "../select/content.js";
import type { ActivationReason } from "../select/reasons.js";
import type { ModelRef } from "../select/scope.js";
import type { Rule } from "../rule/rule.js";
import { NO_ACTIVATION, type Activation } from "./activation.js";
import type { RulesMarker, SilentTrigger } from "./marker.js";
import { NEW_WINDOW, type WindowEvent, type WindowState } from "./window-state.js";

export interface SessionState {
  /** The agent and model the user last chose: a prompt without them would switch the session's agent. */
  readonly agent?: string;
  readonly model?: ModelRef;
  /** What the model's window holds of the rules, and the silent prompts whose fate is unknown (`window-state.ts`). */
  readonly window: WindowState;
  readonly activation: Activation;
  /** What the last look saw when it found nothing to send: while none of it changes, the next look finds nothing again without composing. */
  readonly quiet?: Readonly<Record<string, unknown>>;
  /** Rules a `warn` rule puts into the result of a call that ran, by the call's id, until its result comes (`MAX_WARNED_CALLS` at most). */
  readonly warned?: ReadonlyMap<string, RulesAnswer>;
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
  /** False when the host offers the model no `rule` tool: on-request rules are given whole (`select/window-needs.ts`). */
  readonly ruleTool?: boolean;
  /** The rules whose forbids hold: `list` and the shadowed rules more trusted than what shadows them (absent: `list` alone). */
  readonly forbidding?: Forbidding;
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
  /** The window holds messages after the compaction's summary besides the plugin's rules: the model has read past the point where they would go. */
  movedOn: boolean;
}

/** A user's turn under way: what its message says, and when it is dated. */
export interface Turn {
  readonly prompt: string;
  /** Files it attached, in working-set form. */
  readonly files: readonly string[];
  /** Paths its words name, not checked yet, in working-set form with the absolute path to check. */
  readonly named: ReadonlyArray<{ path: string; absolute: string }>;
  /** When the host dates the message, and the later date it must take to sort after the rules (worked out once the window is known). */
  readonly created: number;
  readonly date?: number;
}

/** Why the window is read: the conversation that goes on with what it holds. */
export type ReadPurpose =
  | { readonly kind: "silent"; readonly trigger: SilentTrigger; readonly pending: readonly string[] }
  | { readonly kind: "join-compaction"; readonly turn: Turn }
  | { readonly kind: "turn"; readonly turn: Turn }
  /** `window`: the window it was asked in; a compaction since makes what it read stale. */
  | { readonly kind: "compaction-ended"; readonly window: number };

export type SessionEvent =
  | WindowEvent
  /** The host met the session: new, or with a history that may hold its rules (a fork, one from before a restart). */
  | { type: "seen"; ignored: boolean; hasHistory: boolean; agent?: string; model?: ModelRef }
  /** A compaction began: its window starts once its summary is written. */
  | { type: "compaction-began" }
  /** The window restarted, empty, as the host lets the model go on (`now`); `windowStart` is the host's id of its start, when it gives one. */
  | { type: "window-restarted"; windowStart?: string; agent?: string; model?: ModelRef; now: number }
  /** The host wrote what the model reads next after a restarted window: rules not stored by now would land after it. */
  | { type: "went-on" }
  /** The host's own word that a compaction finished (it may come late: after the user's next message went to the model). */
  | { type: "compaction-ended" }
  /** A silent rules prompt is due. */
  | { type: "silent-due"; trigger: SilentTrigger; rules: RuleSet; freshId: string }
  /** A user's message, about to reach the model. */
  | { type: "user-turn"; turn: Turn; agent?: string; model?: ModelRef }
  /** The silent delivery under way finished, or was waited for long enough. */
  | { type: "turn-may-go-on"; turn: Turn; rules: RuleSet }
  /** Files the session works with: a tool about to run names them, or a file was touched. */
  | { type: "files-touched"; files: readonly string[] }
  /** A tool ran: the files it named and listed, the rules the text it brought in activates (`contents`); the rules it activated go with its result, and the rules it broke that only warn. */
  | {
      type: "tool-finished";
      tool: string;
      callID?: string;
      files: readonly string[];
      contents?: readonly ContentHit[];
      rules: RuleSet;
    }
  /** A tool call about to run was checked against the rules that forbid: the rules it breaks, none when it breaks none. */
  | {
      type: "call-checked";
      tool: string;
      callID?: string;
      violations: readonly Violation[];
      weakened?: readonly WeakenedRule[];
    }
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
      window: number;
      trigger: SilentTrigger;
      rules: RuleSet;
    }
  | { type: "rules-refused"; delivery: string };

/** What a person may read in the log about a step: typed, worded where it is written. */
export type Note =
  | { kind: "activated"; rule: string; reason: ActivationReason }
  | { kind: "delivered"; rules: readonly string[]; how: SilentTrigger | "message" | "tool-result"; tool?: string }
  | { kind: "went-on-before-rules" }
  /** A call broke rules that forbid: refused (`block`), or let run with the rules in its result (`warn`). */
  | {
      kind: "enforced";
      mode: "block" | "warn";
      tool: string;
      broken: ReadonlyArray<{ rule: string; pattern: string; file?: string; lineNumber?: number }>;
    }
  /** A call that ran weakened rules that forbid (rule files stay writable): the user is told. */
  | { kind: "weakened"; tool: string; weakened: readonly WeakenedRule[] }
  /** The window could not be read before rules went with a user's message, or (`silent`) in a silent prompt. */
  | { kind: "history-unreadable"; error: string; silent?: boolean };

/** Rules for the host to give with the message at hand, and the marker that names them. */
export interface RulesAnswer {
  text: string;
  marker: RulesMarker;
}

export type Effect =
  | { type: "note"; note: Note }
  /** Read what the window holds; answer with `window-seen`. */
  | { type: "read-window"; scope: "current" | "since-compaction"; purpose: ReadPurpose }
  /** Wait (bounded) for the silent delivery under way, then answer with `turn-may-go-on`. */
  | { type: "await-delivery"; turn: Turn }
  /** Check which paths exist (bounded); answer with `paths-found`. */
  | { type: "check-paths"; turn: Turn }
  /** Start (or join) the session's silent delivery: after the grace period a new session gives its first message, or bounded, then `went-on`. */
  | { type: "deliver-silently"; trigger: SilentTrigger; grace?: boolean; thenWentOn?: boolean }
  /** Store a silent rules message; answer with `rules-sent`, or `rules-refused` when the host refused it. */
  | {
      type: "send-rules";
      delivery: string;
      composed: ComposedMessage;
      marker: RulesMarker;
      trigger: SilentTrigger;
      window: number;
      agent?: string;
      model?: ModelRef;
    }
  /** The history cannot be read while an earlier prompt may have been stored: this try fails, a later one reads it again. */
  | { type: "fail"; reason: "history-unreadable-with-pending" }
  /** The host's answer to the call at hand. */
  | { type: "answer"; rules?: RulesAnswer; created?: number; hide?: boolean; refusal?: RulesAnswer };

export interface Step {
  state: SessionState;
  effects: Effect[];
}
