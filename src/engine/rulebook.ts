/**
 * The engine: loads the rules at start, keeps them current, and answers a
 * host's calls (`host.ts`) for each session. Delivery timeline (README, "How
 * delivery works"):
 * 1. A new session: after a short grace period, one silent rules prompt
 *    (`silent-delivery.ts`). A first user message within the grace period
 *    carries the rules itself; one arriving while the prompt is on its way
 *    waits for it, then dates itself after the rules (`turns.ts`).
 * 2. Rules activated mid-session go into the message that activated them:
 *    the user's message (keywords, mentions, paths) or the tool result (files).
 * 3. Compaction: the window starts again, empty; the re-delivery carries every
 *    rule active in the session, at the end of what the model has read: a
 *    silent prompt while nothing follows the summary, else the next user
 *    message or tool result (the prompt-cache guarantee: nothing the model
 *    read is ever changed or has a message put before it).
 * What each session's window holds is one explicit model
 * (`session/delivery.ts`); this folder does the I/O around it.
 *
 * Bounds (README, "Security"): every host call has its own timeout, and every
 * call a host awaits returns within `HookLimits` whatever the host or the disk
 * does; a deleted session is never prompted again and its state is freed;
 * `dispose` stops everything.
 */
import type { Logger } from "../log.js";
import type { RulebookOptions } from "../options.js";
import type { Rule } from "../rule/rule.js";
import type { RuleFs } from "../discover/fs.js";
import { startLiveRules, type RuleChanges } from "../formats/live-rules.js";
import type { LoadedRules } from "../formats/load.js";
import { projectRoot } from "../discover/locations.js";
import type { RetryPolicy } from "../deliver/sessions.js";
import { reasonText } from "../select/reasons.js";
import { ruleSetIndex } from "../select/rule-set.js";
import { advance, type DeliveryEvent } from "../session/delivery.js";
import { sessionStore, type SessionReport, type SessionState, type SessionStore } from "../session/state.js";
import type { Rulebook, SessionPort, WindowView } from "./host.js";
import { silentDelivery } from "./silent-delivery.js";
import { boundedCalls, errorText, withTimeout, type BoundedCall } from "./timing.js";
import { sessionTurns } from "./turns.js";

export interface EngineDeps {
  port: SessionPort;
  directory: string;
  worktree: string;
  env: Record<string, string | undefined>;
  home: string;
  fs: RuleFs;
  options: RulebookOptions;
  log: Logger;
  retry?: RetryPolicy;
  /** How long a first user message waits for the rules delivery under way. */
  firstMessageWaitMs?: number;
  /** How long a new session's silent prompt waits for a first message that would carry the rules itself. */
  creationGraceMs?: number;
  /** How long one rules prompt may take before it is given up. */
  promptTimeoutMs?: number;
  /** The other bounds of awaited calls (tests shorten them). */
  limits?: Partial<HookLimits>;
  /** The `extraDirs` the user's own OpenCode config names: only these may lie outside the repository. */
  userExtraDirs?: readonly string[];
}

/** How long a call a host awaits may wait on each thing; the sum stays within a few seconds. */
export interface HookLimits {
  /** For a rules reload under way; past it the call goes on with the rules it has, and the reload lands later. */
  reloadWaitMs: number;
  /** For one history read. */
  historyTimeoutMs: number;
  /** For the compaction re-delivery; past it the delivery goes on, and a failure is left for the next event. */
  compactionWaitMs: number;
  /** For checking which paths named in a prompt exist. */
  pathCheckMs: number;
}

export const HOOK_LIMITS: HookLimits = { reloadWaitMs: 1000, historyTimeoutMs: 2000, compactionWaitMs: 4000, pathCheckMs: 500 };

/** The rules in effect, indexed once per load. */
export interface RuleSet {
  list: readonly Rule[];
  byName: ReadonlyMap<string, Rule>;
  names: ReadonlySet<string>;
  /** How many warnings loading them gave (the Rules panel counts them). */
  warnings: number;
}

/** What the engine's parts share. */
export interface Engine {
  deps: EngineDeps;
  limits: HookLimits;
  root: string;
  log: Logger;
  sessions: SessionStore;
  rules(): RuleSet;
  /** Picks up changed rule files, waiting at most `reloadWaitMs`. */
  refresh(): Promise<void>;
  within: BoundedCall;
  /** What the session's window holds, as the host's history shows it, within `historyTimeoutMs`. */
  readWindow(sessionID: string, scope: "current" | "since-compaction"): Promise<WindowView>;
  /** Aborted by `dispose`: grace periods end, host calls stop, nothing is sent any more. */
  stopped: AbortSignal;
  /** Moves the session's delivery model. */
  update(state: SessionState, event: DeliveryEvent): void;
}

/** The engine with what its owner needs besides the host's calls. */
export interface RunningRulebook extends Rulebook {
  /** The rules in effect now (hot reload replaces them). */
  loaded(): LoadedRules;
  /** Stops watching rule folders, sending and waiting; frees every session. */
  dispose(): void;
  report(sessionID: string): SessionReport | undefined;
}

export async function startRulebook(deps: EngineDeps): Promise<RunningRulebook> {
  const { log, options } = deps;
  const live = await startLiveRules({ ...deps, maxRuleBytes: options.maxRuleBytes }, { sources: options.sources, extraDirs: options.extraDirs }, log);
  const index = ({ rules: list, warnings }: LoadedRules): RuleSet => {
    const byName = new Map(list.map((rule) => [rule.name, rule]));
    return { list, byName, names: ruleSetIndex(list).names, warnings: warnings.length };
  };
  let rules = index(live.current());
  const sessions = sessionStore();
  const stopped = new AbortController();

  /** Sessions holding a changed or deleted rule get the new version, or a note, at their next delivery. */
  const applyChanges = (changes: RuleChanges) => {
    rules = index(live.current());
    for (const state of sessions.all()) {
      // Globs may have changed: match the whole working set again, once.
      state.activation.fileMatches.clear();
      state.activation.unmatched = [...state.activation.files];
      for (const name of changes.removed) state.activation.activated.delete(name);
      state.delivery = advance(state.delivery, { type: "reloaded", current: rules.byName });
    }
  };
  let reloading: Promise<void> | undefined;
  const limits = { ...HOOK_LIMITS, ...deps.limits };
  const within = boundedCalls(stopped.signal);
  const engine: Engine = {
    deps,
    limits,
    root: projectRoot(deps.directory, deps.worktree),
    log,
    sessions,
    rules: () => rules,
    async refresh() {
      // A slow disk never holds a hook: the reload lands later.
      reloading ??= live
        .refresh()
        .then((changes) => changes && applyChanges(changes))
        .catch((error) => log.error(`Reloading the rules failed; the rules loaded before stay in effect: ${errorText(error)}`))
        .finally(() => (reloading = undefined));
      await withTimeout(reloading, limits.reloadWaitMs);
    },
    within,
    readWindow: (sessionID, scope) => within(limits.historyTimeoutMs, (signal) => deps.port.readWindow(sessionID, scope, signal)),
    stopped: stopped.signal,
    update: (state, event) => {
      state.delivery = advance(state.delivery, event);
    },
  };
  const delivery = silentDelivery(engine);
  const turns = sessionTurns(engine, delivery);

  return {
    ...delivery.calls,
    ...turns.calls,
    loaded: () => live.current(),
    dispose() {
      stopped.abort();
      live.close();
      sessions.close();
      turns.close();
    },
    report(sessionID) {
      const state = sessions.peek(sessionID);
      if (!state) return undefined;
      return {
        sessionID,
        files: [...state.activation.files].sort(),
        active: [...state.activation.activated].map(([name, reason]) => ({ name, reason: reasonText(reason) })),
        delivered: [...state.delivery.delivered.keys()].sort(),
      };
    },
  };
}
