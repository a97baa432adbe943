/**
 * The engine: loads the rules at start, keeps them current, and answers a
 * host's calls (`contract.ts`) for each session. Delivery timeline (docs/hosts.md,
 * "How delivery works"):
 * 1. A new session: after a short grace period, one silent rules prompt. A
 *    first user message within the grace period carries the rules itself;
 *    one arriving while the prompt is on its way waits for it, then dates
 *    itself after the rules.
 * 2. Rules activated mid-session go into the message that activated them:
 *    the user's message (keywords, mentions, paths) or the tool result (files).
 * 3. Compaction: the window starts again, empty; the re-delivery carries every
 *    rule active in the session, at the end of what the model has read: a
 *    silent prompt while nothing follows the summary, else the next user
 *    message or tool result (the prompt-cache guarantee: nothing the model
 *    read is ever changed or has a message put before it).
 * What to do is the session model's to say (`session/step.ts`); this folder
 * carries it out (`runner.ts`) and keeps its bounds.
 *
 * Bounds (docs/security.md): every host call has its own timeout, and every
 * call a host awaits returns within `HookLimits` whatever the host or the disk
 * does; a deleted session is never prompted again and its state is freed;
 * `dispose` stops everything.
 */
import type { Logger } from "../log.js";
import type { RulebookOptions } from "../options.js";
import type { RuleFs } from "../discover/fs.js";
import type { ParseCacheStore } from "../discover/parse-cache-file.js";
import { startLiveRules, type RuleChanges } from "../formats/live-rules.js";
import type { ConfiguredPack } from "../packs/configured.js";
import type { LoadedRules } from "../formats/load.js";
import { foldersFromRoot, projectRoot, projectRulesDirs } from "../discover/locations.js";
import { prepareForbidden } from "../enforce/forbidding-tiers.js";
import { reasonText } from "../select/reasons.js";
import type { RecordSink } from "../record/store.js";
import type { RuleSet } from "../session/session.js";
import { DEFAULT_RETRY, type RetryPolicy } from "../session/silent-delivery.js";
import { placedPath } from "../session/paths.js";
import { sessionStore, type SessionReport } from "../session/store.js";
import { rulebookCalls } from "./calls.js";
import { CHECK_SLICE_MS, callChecking, nextTurn } from "./check-call.js";
import type { HostLabels, Rulebook, SessionPort } from "./contract.js";
import { CREATION_GRACE_MS, FIRST_MESSAGE_WAIT_MS, HOOK_LIMITS, type HookLimits, PROMPT_TIMEOUT_MS } from "./limits.js";
import { noteHearers } from "./note-hearers.js";
import { noteWriter } from "./notes.js";
import { factsObserver } from "./observed-facts.js";
import { ruleSetOf } from "./rule-index.js";
import { sessionRunner } from "./runner.js";
import { boundedCalls, errorText, withTimeout } from "./timing.js";

export interface EngineDeps {
  port: SessionPort;
  directory: string;
  worktree: string;
  env: Record<string, string | undefined>;
  home: string;
  fs: RuleFs;
  options: RulebookOptions;
  log: Logger;
  /** The host's words for its calls, in log lines. */
  labels?: HostLabels;
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
  /** The packs the administrator, the user and the project name (pack-config.ts). */
  packs?: readonly ConfiguredPack[];
  /** Where parsed rules are kept between starts; none: every start reads every rule file. */
  parseStore?: ParseCacheStore;
  /** Where the record of what the rules did goes (none: not kept). */
  record?: RecordSink;
  /**
   * Whether the host offers the model the `rule` tool now (asked at each event; the host may learn it late). Offered
   * when absent.
   */
  ruleTool?: () => boolean;
}

/** The engine with what its owner needs besides the host's calls. */
export interface RunningRulebook extends Rulebook {
  /** The rules in effect now (hot reload replaces them). */
  loaded(): LoadedRules;
  /** Stops watching rule folders, sending and waiting; frees every session; writes what the record holds. */
  dispose(): Promise<void>;
  report(sessionID: string): SessionReport | undefined;
  /**
   * `holder` hears of each session the engine forgets (`undefined`: all of them, at `dispose`), to free what it keeps
   * of it.
   */
  onForget(holder: (sessionID: string | undefined) => void): () => void;
}

export async function startRulebook(deps: EngineDeps): Promise<RunningRulebook> {
  const { log, options } = deps;
  const live = await startLiveRules(
    { ...deps, maxRuleBytes: options.maxRuleBytes },
    { sources: options.sources, extraDirs: options.extraDirs, packs: deps.packs },
    log,
    deps.parseStore,
  );
  const index = (loaded: LoadedRules): RuleSet => ruleSetOf(loaded, options);
  let indexed = index(live.current());
  // The forbidden patterns' sets are compiled now, in slices, not by the first call checked.
  const prepare = (set: RuleSet) => {
    const rulesChecked = set.forbidding?.rules ?? set.list;
    void prepareForbidden(
      rulesChecked,
      { now: () => performance.now(), sliceMs: CHECK_SLICE_MS, pause: nextTurn },
      () => stopped.signal.aborted || indexed !== set,
    ).catch((error) =>
      log.error(
        `Compiling the forbidden patterns ahead failed; they are compiled when first needed: ${errorText(error)}`,
      ),
    );
  };
  // The host's offer of the rule tool is read at each event: an adapter may learn it after the rules were loaded.
  const rules = (): RuleSet => (deps.ruleTool === undefined ? indexed : { ...indexed, ruleTool: deps.ruleTool() });
  const sessions = sessionStore((sessionID, error) =>
    log.error(
      `Freeing what is kept of session ${sessionID ?? "(all sessions)"} failed; the rest was freed: ${errorText(error)}`,
      { sessionID, error: errorText(error) },
    ),
  );
  const stopped = new AbortController();
  prepare(indexed);
  const limits = { ...HOOK_LIMITS, ...deps.limits };
  const within = boundedCalls(stopped.signal, log);

  const labels = deps.labels ?? {};
  const place = { directory: deps.directory, projectRoot: projectRoot(deps.directory, deps.worktree), home: deps.home };
  const checking = callChecking({
    fs: deps.fs,
    checkMs: limits.checkMs,
    projectRoot: place.projectRoot,
    loaded: () => live.current(),
    ruleWrites: {
      projectRoot: place.projectRoot,
      levels: foldersFromRoot(deps.directory, deps.worktree),
      nativeFolders: projectRulesDirs(deps.directory, deps.worktree),
      maxRuleBytes: options.maxRuleBytes,
    },
  });
  const runner = sessionRunner({
    port: deps.port,
    sessions,
    rules,
    log,
    note: noteHearers(
      noteWriter({ log, labels, checkMs: limits.checkMs }),
      deps.record && { sink: deps.record, project: place.projectRoot, rules, log },
    ),
    fs: deps.fs,
    within,
    stopped: stopped.signal,
    bounds: {
      ...limits,
      promptTimeoutMs: deps.promptTimeoutMs ?? PROMPT_TIMEOUT_MS,
      firstMessageWaitMs: deps.firstMessageWaitMs ?? FIRST_MESSAGE_WAIT_MS,
      creationGraceMs: deps.creationGraceMs ?? CREATION_GRACE_MS,
    },
    retry: deps.retry ?? DEFAULT_RETRY,
    checking,
  });

  /** Sessions holding a changed or deleted rule get the new version, or a note, at their next delivery. */
  const applyChanges = (changes: RuleChanges) => {
    indexed = index(live.current());
    prepare(indexed);
    for (const id of sessions.ids())
      void runner.drive(id, { type: "rules-reloaded", rules: rules(), removed: changes.removed });
  };
  let reloading: Promise<void> | undefined;
  const refresh = async () => {
    // A slow disk never holds a hook: the reload lands later.
    reloading ??= live
      .refresh()
      .then((changes) => changes && applyChanges(changes))
      .catch((error) =>
        log.error(`Reloading the rules failed; the rules loaded before stay in effect: ${errorText(error)}`),
      )
      .finally(() => (reloading = undefined));
    await withTimeout(reloading, limits.reloadWaitMs);
  };

  const calls = rulebookCalls({
    sessions,
    runner,
    rules,
    refresh,
    lookUp: (paths) => {
      if (paths.length > 0) void live.lookUp(paths.map((path) => placedPath(path, place).absolute));
    },
    log,
    labels,
    place,
    subagents: deps.options.subagents,
    observe: factsObserver(deps.fs, place.projectRoot),
  });

  return {
    ...calls,
    loaded: () => live.current(),
    onForget: (holder) => sessions.onForget(holder),
    async dispose() {
      // The turns under way end here: refusals still awaiting their correction were given up.
      for (const id of sessions.ids()) void runner.drive(id, { type: "session-ended" });
      stopped.abort();
      live.close();
      sessions.close();
      await deps.record?.close();
    },
    report(sessionID) {
      const state = sessions.peek(sessionID);
      if (!state) return undefined;
      return {
        sessionID,
        files: [...state.activation.files].sort(),
        active: [...state.activation.activated].map(([name, reason]) => ({ name, reason: reasonText(reason) })),
        delivered: [...state.window.delivered.keys()].sort(),
      };
    },
  };
}
