/**
 * The engine: loads the rules at start and answers OpenCode's hooks. Every
 * handler catches its own errors: nothing the plugin does may break the
 * user's session.
 *
 * Delivery timeline of a session (README, "How delivery works"):
 * 1. `session.created`: after a short grace period, one silent rules prompt
 *    (OpenCode does not await the event hook).
 * 2. A first user message within the grace period carries the rules itself.
 *    One arriving while the silent prompt is on its way waits for it in
 *    `chat.message` (awaited by OpenCode), then dates itself after the rules.
 *    If the rules could not be stored in time, they go into that user message
 *    as a synthetic part instead, and a late rules prompt is ignored.
 * 3. Rules activated mid-session go into the message that activated them: the
 *    user's message (keywords, mentions, paths) or the tool result (files).
 * 4. Compaction: automatic, from `experimental.compaction.autocontinue` (before
 *    OpenCode's "Continue"); manual, from `session.compacted`. The re-delivery
 *    carries every rule active in the session.
 *
 * Bounds (README, "Security"): every client call has its own timeout, and
 * every hook OpenCode awaits returns within HOOK_LIMITS whatever the client
 * or the disk does; a delivery still under way then goes on, and one that
 * fails is left for the session's next event. A deleted session is never
 * prompted again and its state is freed; `dispose` stops everything.
 */
import type { Event, Part, UserMessage } from "@opencode-ai/sdk";
import { randomUUID } from "node:crypto";
import { compactionSummaryTime, currentWindow, lastUserChoice, rulesMarkersIn, sinceCompaction, storedDelivery, type HistoryMessage } from "./deliver/history.js";
import { partIdBefore } from "./deliver/part-id.js";
import { markerOf, MARKER_KEY, PROMPT_TIMEOUT_MS, sendRulesPrompt, type OpencodeClient, type RulesMarker } from "./deliver/prompt.js";
import { answerRuleRequest } from "./deliver/rule-tool.js";
import { createSessionTracker, type RetryPolicy } from "./deliver/sessions.js";
import type { Logger } from "./log.js";
import type { RulebookOptions } from "./options.js";
import { composeRulesMessage, type ComposedMessage } from "./render/compose.js";
import { matchNewFiles } from "./select/active.js";
import { mentionedRuleNames } from "./select/mentions.js";
import { normalisePath, pathsNamedInPrompt, pathsFromToolArgs, pathsFromToolOutput } from "./session/working-set.js";
import { addAttempt, pendingAttempts, sessionStore, supersedePending, type ModelRef, type SessionReport, type SessionState } from "./session/state.js";
import type { Rule } from "./rule/rule.js";
import type { RuleFs } from "./sources/fs.js";
import { differs, startLiveRules, type RuleChanges } from "./sources/live-rules.js";
import type { LoadedRules } from "./sources/load.js";
import { projectRoot } from "./sources/locations.js";

export interface EngineDeps {
  client: OpencodeClient;
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
  /** The other bounds of awaited hooks (tests shorten them). */
  limits?: Partial<HookLimits>;
  /** The `extraDirs` the user's own OpenCode config names: only these may lie outside the repository. */
  userExtraDirs?: readonly string[];
}

/** How long a hook OpenCode awaits may wait on each thing; the sum stays within a few seconds. */
export interface HookLimits {
  /** For a rules reload under way; past it the hook goes on with the rules it has, and the reload lands later. */
  reloadWaitMs: number;
  /** For one history read. */
  historyTimeoutMs: number;
  /** For the compaction re-delivery; past it the delivery goes on, and a failure is left for the next event. */
  compactionWaitMs: number;
  /** For checking which paths named in a prompt exist. */
  pathCheckMs: number;
}

export const HOOK_LIMITS: HookLimits = { reloadWaitMs: 1000, historyTimeoutMs: 2000, compactionWaitMs: 4000, pathCheckMs: 500 };

/** How long a first user message waits for the rules delivery under way. */
export const FIRST_MESSAGE_WAIT_MS = 2500;

export interface ChatMessageInput {
  sessionID: string;
  agent?: string;
  model?: ModelRef;
}

export interface CompactionInput {
  sessionID: string;
  agent: string;
  model: { id: string; providerID: string };
}

export interface ToolInput {
  tool: string;
  sessionID: string;
  callID: string;
  args?: unknown;
}

export interface Rulebook {
  /** The rules in effect now (hot reload replaces them). */
  loaded(): LoadedRules;
  /** Stops watching rule folders. */
  dispose(): void;
  onEvent(event: Event): Promise<void>;
  onChatMessage(input: ChatMessageInput, output: { message: UserMessage; parts: Part[] }): Promise<void>;
  onCompactionAutocontinue(input: CompactionInput): Promise<void>;
  onToolBefore(input: ToolInput, output: { args: unknown }): Promise<void>;
  onToolAfter(input: ToolInput, output: { title: string; output: string; metadata: unknown }): Promise<void>;
  /** The `rule` tool's answer. */
  readRule(sessionID: string, name: string): string;
  report(sessionID: string): SessionReport | undefined;
}

/** Long enough for a prompt sent right after creating a session; short enough to go unnoticed otherwise. */
export const CREATION_GRACE_MS = 300;

/** OpenCode names a forked session `<title> (fork #n)`; its history, rules included, is copied after `session.created`. */
const FORK_TITLE = /\(fork #\d+\)$/;

export async function startRulebook(deps: EngineDeps): Promise<Rulebook> {
  const { client, log, options } = deps;
  const limits = { ...HOOK_LIMITS, ...deps.limits };
  const root = projectRoot(deps.directory, deps.worktree);
  const live = await startLiveRules({ ...deps, maxRuleBytes: options.maxRuleBytes }, { sources: options.sources, extraDirs: options.extraDirs }, log);
  let rules = live.current().rules;
  let byName = new Map(rules.map((rule) => [rule.name, rule]));
  let ruleNames = new Set(byName.keys());
  const sessions = sessionStore();
  /** Aborted by `dispose`: grace periods end, client calls stop, nothing is sent any more. */
  const stopped = new AbortController();
  /**
   * Runs one client call with its own timeout, also aborted by `dispose`. A
   * timer and a controller held here, not `AbortSignal.timeout()`, which the
   * runtime may collect before it fires; both are released when the call ends.
   */
  const within = async <T>(timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    const abort = () => controller.abort(stopped.signal.reason);
    const timer = setTimeout(() => controller.abort(new DOMException(`no answer in ${timeoutMs} ms`, "TimeoutError")), timeoutMs);
    stopped.signal.addEventListener("abort", abort);
    try {
      return await call(controller.signal);
    } finally {
      clearTimeout(timer);
      stopped.signal.removeEventListener("abort", abort);
    }
  };

  /** A rule the model holds, as it should be recorded: its current object when its text is unchanged, so it is not sent again. */
  const currentVersion = (given: Rule): Rule => {
    const now = byName.get(given.name);
    return now && !differs(given, now) ? now : given;
  };

  /** Takes in a reload; sessions holding a changed or deleted rule get the new version, or a note, at their next delivery. */
  const applyChanges = (changes: RuleChanges) => {
    rules = live.current().rules;
    byName = new Map(rules.map((rule) => [rule.name, rule]));
    ruleNames = new Set(byName.keys());
    for (const state of sessions.all()) {
      // Globs may have changed: match the whole working set again, once.
      state.fileMatches.clear();
      state.filesMatched = 0;
      for (const name of changes.removed) state.activated.delete(name);
      for (const [name, given] of state.delivered) state.delivered.set(name, currentVersion(given));
    }
  };
  let reloading: Promise<void> | undefined;
  /** Picks up changed rule files, waiting at most `reloadWaitMs`: a slow disk never holds a hook, the reload lands later. */
  const refresh = async () => {
    reloading ??= live
      .refresh()
      .then((changes) => changes && applyChanges(changes))
      .catch((error) => log.error(`Reloading the rules failed; the rules loaded before stay in effect: ${errorText(error)}`))
      .finally(() => (reloading = undefined));
    await withTimeout(reloading, limits.reloadWaitMs);
  };
  /** The last session seen working: `file.edited` names no session. */
  let lastActiveSession: string | undefined;

  /**
   * The rules the session does not hold yet, given what is now in its context.
   * Records activations (with the debug line) and, once sent, marks them delivered.
   */
  const compose = (sessionID: string, state: SessionState, prompt?: string): ComposedMessage | undefined => {
    if (state.filesMatched < state.files.size) {
      // Only files new since the last look are matched: an event's cost does not grow with the working set.
      matchNewFiles(rules, [...state.files].slice(state.filesMatched), state.fileMatches);
      state.filesMatched = state.files.size;
    }
    const composed = composeRulesMessage(
      rules,
      { files: [], fileMatches: state.fileMatches, prompt, mentioned: state.mentioned, activated: state.activated },
      { delivered: state.delivered, listOnRequest: !state.listedOnRequest, maxBytes: options.maxMessageBytes },
    );
    for (const { rule, reason } of composed?.included ?? []) {
      if (reason !== "always" && !state.activated.has(rule.name)) {
        state.activated.set(rule.name, reason);
        log.debug(`Activated rule ${rule.name} for session ${sessionID}: ${reason}`, { sessionID, rule: rule.name, reason });
      }
    }
    return composed;
  };
  const markerFor = (composed: ComposedMessage, trigger: string): RulesMarker => ({ kind: "rules", rules: composed.included.map(({ rule }) => rule.name), trigger });
  const recordDelivered = (state: SessionState, composed: ComposedMessage) => {
    // A rule edited while this message was on its way keeps its old version here, so it goes again as a replacement.
    for (const { rule } of composed.included) state.delivered.set(rule.name, currentVersion(rule));
    for (const name of composed.removed) state.delivered.delete(name);
    if (composed.onRequest.length > 0) state.listedOnRequest = true;
  };

  /** What the session's current window holds, as its history shows it: a fork, a restart, a delivery that landed after a compaction. */
  const adoptWindow = (state: SessionState, window: readonly HistoryMessage[]): boolean => {
    const markers = rulesMarkersIn(window);
    for (const marker of markers) {
      // A timed-out attempt of this plugin: what it carried. Otherwise the rules it names, as they are now.
      const attempt = marker.delivery === undefined ? undefined : state.attempts.get(marker.delivery);
      if (attempt) recordDelivered(state, attempt.composed);
      for (const name of attempt ? [] : marker.rules) {
        const rule = byName.get(name);
        if (rule) state.delivered.set(name, rule);
      }
    }
    if (markers.length > 0) state.listedOnRequest = true;
    return markers.length > 0;
  };

  /** A compaction: the model's window starts again, empty of rules. */
  const startWindow = (state: SessionState) => {
    state.window++;
    state.delivered.clear();
    state.listedOnRequest = false;
  };

  const readHistory = async (sessionID: string): Promise<HistoryMessage[]> => {
    const result = await within(limits.historyTimeoutMs, (signal) => client.session.messages({ path: { id: sessionID }, signal }));
    if (result.error !== undefined || !Array.isArray(result.data)) throw new Error(`reading the history of session ${sessionID} failed (${result.response?.status})`);
    return result.data as unknown as HistoryMessage[];
  };

  const tracker = createSessionTracker({
    retry: deps.retry,
    // A deleted session is not prompted; after `dispose` nothing is.
    alive: (sessionID) => !stopped.signal.aborted && sessions.peek(sessionID) !== undefined,
    async send(sessionID, trigger) {
      const state = sessions.peek(sessionID);
      if (!state) return;
      const compacted = trigger === "session.compacted";
      const pending = pendingAttempts(state);
      const needsHistory = compacted || (!state.agent && !state.knownEmpty) || pending.size > 0;
      const history = needsHistory ? await readHistory(sessionID).catch(() => undefined) : undefined;
      // An earlier attempt that timed out may have been stored after all: never send the rules twice, and never blind.
      if (pending.size > 0 && !history) throw new Error("an earlier rules prompt may have been stored, and the history that would tell cannot be read; trying again later");
      // A prompt without the session's agent would switch it to the default agent.
      if (history && !state.agent) Object.assign(state, lastUserChoice(history));
      // After a compaction, only what lies after it counts (and nothing, while the history does not show it yet).
      const window = history && (compacted ? sinceCompaction(history) : currentWindow(history));
      // The new window may already hold rules: a delivery that was on its way when the compaction came.
      if (compacted && window) adoptWindow(state, window);
      const windowCount = state.window;
      const composed = compose(sessionID, state);
      if (!composed) return;
      // After compaction OpenCode may already be working again (a replayed prompt): the rules must not be its newest message.
      const summaryTime = compacted && history ? compactionSummaryTime(history) : undefined;
      state.dateRulesAt = summaryTime !== undefined ? summaryTime + 1 : undefined;
      const earlier = window && storedDelivery(window, pending);
      let created: number;
      let delivery: string;
      if (earlier) {
        created = earlier.created ?? Date.now();
        delivery = earlier.delivery;
      } else {
        delivery = randomUUID();
        addAttempt(state, delivery, composed, windowCount);
        const marker = { ...markerFor(composed, trigger), delivery };
        try {
          const prompt = { sessionID, text: composed.text, marker, agent: state.agent, model: state.model };
          created = (await within(deps.promptTimeoutMs ?? PROMPT_TIMEOUT_MS, (signal) => sendRulesPrompt(client, prompt, signal))).created;
        } catch (error) {
          // Only a timeout leaves the outcome unknown; any other failure was an answer.
          if ((error as Error).name !== "TimeoutError" && (error as Error).name !== "AbortError") state.attempts.delete(delivery);
          throw error;
        }
      }
      // What the stored attempt carried, not what would be composed now (a rule may have changed since).
      const attempt = state.attempts.get(delivery);
      const sent = attempt?.composed ?? composed;
      // Earlier attempts that may still land are copies now; one the user's message replaced carries nothing new.
      supersedePending(state, delivery);
      if (attempt?.status === "superseded") return;
      if (attempt) attempt.status = "landed";
      // A compaction while this was on its way: the window it was for is gone, and the compaction's own delivery reads what the new one holds.
      if (state.window !== windowCount) return;
      state.rulesCreated = created;
      recordDelivered(state, sent);
      log.debug(`Delivered ${sent.included.length} rules to session ${sessionID} on ${trigger}`, { sessionID, rules: sent.included.map(({ rule }) => rule.name) });
    },
    onFailure(sessionID, trigger, error, attempt, final) {
      log.error(`Rules delivery to session ${sessionID} on ${trigger} failed (try ${attempt})${final ? "; left for the session's next event" : "; retrying"}: ${errorText(error)}`, {
        sessionID,
        event: trigger,
        attempt,
        error: errorText(error),
      });
    },
  });

  /** Adds existing files named in the prompt, attached to it, and `@rule` mentions to the session. */
  const takeInPrompt = async (sessionID: string, state: SessionState, parts: Part[]): Promise<string> => {
    const texts: string[] = [];
    for (const part of parts) {
      // One odd part (a file URL that does not decode) is that part's problem only.
      try {
        if (part.type === "text" && !part.synthetic && typeof part.text === "string") texts.push(part.text);
        if (part.type === "file") {
          const source = (part as { source?: { path?: unknown } }).source;
          const raw = typeof source?.path === "string" ? source.path : typeof part.url === "string" && part.url.startsWith("file://") ? part.url : undefined;
          if (raw) state.files.add(normalisePath(raw, deps.directory, root));
        }
      } catch (error) {
        log.warn(`A part of a message in session ${sessionID} could not be read (${errorText(error)}); the rest of the message was`, { sessionID });
      }
    }
    const prompt = texts.join("\n");
    for (const name of mentionedRuleNames(prompt, ruleNames)) state.mentioned.add(name);
    const named = pathsNamedInPrompt(prompt, ruleNames, { directory: deps.directory, projectRoot: root, home: deps.home });
    // A slow disk (a hung network mount) must not hold the message: paths not checked in time are left out.
    const exists = await withTimeout(Promise.all(named.map(({ absolute }) => deps.fs.stat(absolute).then(() => true, () => false))), limits.pathCheckMs);
    for (const [index, { path }] of named.entries()) if (exists?.[index]) state.files.add(path);
    return prompt;
  };

  const takeInToolCall = (state: SessionState, input: ToolInput, args: unknown, output?: string) => {
    for (const raw of pathsFromToolArgs(args)) state.files.add(normalisePath(raw, deps.directory, root));
    if (output) for (const raw of pathsFromToolOutput(input.tool, output, root)) state.files.add(normalisePath(raw, deps.directory, root));
  };

  /** Puts rules into the user's message itself, before the user's words. */
  const addToUserMessage = (sessionID: string, state: SessionState, output: { message: UserMessage; parts: Part[] }, composed: ComposedMessage, trigger: string) => {
    output.parts.unshift({
      id: partIdBefore(output.parts.map((existing) => existing.id)),
      sessionID,
      messageID: output.message.id,
      type: "text",
      text: composed.text,
      synthetic: true,
      metadata: { [MARKER_KEY]: markerFor(composed, trigger) },
    });
    recordDelivered(state, composed);
  };

  const guard = async (what: string, sessionID: string | undefined, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      log.error(`Handling ${what}${sessionID ? ` for session ${sessionID}` : ""} failed: ${errorText(error)}`, { sessionID, hook: what, error: errorText(error) });
    }
  };

  return {
    loaded: () => live.current(),
    dispose: () => {
      stopped.abort();
      live.close();
      sessions.close();
      lastActiveSession = undefined;
    },

    onEvent: (event) =>
      guard(event.type, undefined, async () => {
        if (event.type === "session.created" || event.type === "session.compacted") await refresh();
        if (rules.length === 0) return;
        if (event.type === "session.created") {
          const info = event.properties.info as typeof event.properties.info & { agent?: string; model?: { providerID: string; id?: string; modelID?: string } };
          const state = sessions.get(info.id);
          if (!state) return;
          if (info.parentID && !options.subagents) {
            state.ignored = true;
            return;
          }
          state.agent ??= info.agent;
          state.model ??= modelRef(info.model);
          if (FORK_TITLE.test(info.title ?? "")) return; // read back from its history at its first message
          state.knownEmpty = true;
          // The terminal UI and the task tool prompt a new session at once. OpenCode sets a session's agent and
          // model from each prompt before plugins see it, and a new session's own are not known yet: a silent
          // prompt racing that first message could leave the session on the default agent. A first message
          // arriving within the grace period carries the rules itself; otherwise the silent prompt goes.
          await sleep(deps.creationGraceMs ?? CREATION_GRACE_MS, stopped.signal);
          // Deleted during the grace period (or the plugin disposed): nothing to send.
          if (sessions.peek(info.id) !== state) return;
          await tracker.deliver(info.id, "session.created");
        } else if (event.type === "session.compacted") {
          const state = sessions.get(event.properties.sessionID);
          if (!state || state.ignored) return;
          // The autocontinue hook may already have started the re-delivery for this compaction: join it.
          const run = state.compactionRuns.shift();
          // A manual compaction (no autocontinue hook): its window starts here.
          if (!run) startWindow(state);
          else if ((await run).delivered) return;
          await tracker.deliver(event.properties.sessionID, "session.compacted");
        } else if (event.type === "session.deleted") {
          const id = event.properties.info.id;
          sessions.delete(id);
          tracker.forget(id);
          if (lastActiveSession === id) lastActiveSession = undefined;
        } else if (event.type === "file.edited" && lastActiveSession) {
          // Delivered with the session's next tool result or message.
          sessions.get(lastActiveSession)?.files.add(normalisePath(event.properties.file, deps.directory, root));
        }
      }),

    onChatMessage: (input, output) =>
      guard("chat.message", input.sessionID, async () => {
        const state = sessions.get(input.sessionID);
        if (!state) return;
        const own = output.parts.find((part) => markerOf(part as { metadata?: Record<string, unknown> }));
        if (own) {
          // Our own silent prompt. If the rules already went another way, this late copy stays out of the model's sight.
          const attempt = state.attempts.get(markerOf(own as { metadata?: Record<string, unknown> })?.delivery ?? "");
          if (attempt?.status === "superseded") {
            (own as { ignored?: boolean }).ignored = true;
            return;
          }
          if (state.dateRulesAt !== undefined && state.dateRulesAt < output.message.time.created) output.message.time.created = state.dateRulesAt;
          state.dateRulesAt = undefined;
          // OpenCode is storing it now: what it carries is in the window from this moment, whether or not its answer reaches the plugin in time.
          if (attempt?.status === "pending") {
            attempt.status = "landed";
            // Composed for a window a compaction has ended since: the new window's delivery reads the history instead.
            if (attempt.window !== state.window) return;
            recordDelivered(state, attempt.composed);
            state.rulesCreated = output.message.time.created;
            tracker.markDelivered(input.sessionID);
          }
          return;
        }
        await refresh();
        if (rules.length === 0 || state.ignored) return;
        lastActiveSession = input.sessionID;
        state.agent = output.message.agent ?? input.agent ?? state.agent;
        state.model = output.message.model ?? input.model ?? state.model;
        const running = tracker.inFlight(input.sessionID);
        if (running) await withTimeout(running, deps.firstMessageWaitMs ?? FIRST_MESSAGE_WAIT_MS);
        // A fork, a session from before a restart, or one whose rules prompt timed out: the history tells what the window holds.
        if (!tracker.isDelivered(input.sessionID) && (!state.knownEmpty || pendingAttempts(state).size > 0)) {
          // Unreadable history: deliver anyway; a rule read twice costs less than a rule missing.
          const history = await readHistory(input.sessionID).catch((error) => {
            log.warn(`Could not read the history of session ${input.sessionID} (${errorText(error)}); delivering the rules with this message, though an earlier copy may be there`, { sessionID: input.sessionID });
            return [];
          });
          if (adoptWindow(state, currentWindow(history))) {
            supersedePending(state);
            tracker.markDelivered(input.sessionID);
          }
        }
        if (tracker.isDelivered(input.sessionID) && state.rulesCreated !== undefined && output.message.time.created <= state.rulesCreated) {
          // Messages are ordered by creation time: the user's must come after the rules.
          output.message.time.created = state.rulesCreated + 1;
        }
        const prompt = await takeInPrompt(input.sessionID, state, output.parts);
        const first = !tracker.isDelivered(input.sessionID);
        const composed = compose(input.sessionID, state, prompt);
        if (composed) {
          addToUserMessage(input.sessionID, state, output, composed, first ? "chat.message" : "prompt");
          log.debug(`Delivered ${composed.included.length} rules to session ${input.sessionID} inside its user message`, { sessionID: input.sessionID });
        }
        // This message holds every rule the session needs: a rules prompt still on its way would only repeat them.
        supersedePending(state);
        if (first) tracker.markDelivered(input.sessionID);
      }),

    onCompactionAutocontinue: (input) =>
      guard("experimental.compaction.autocontinue", input.sessionID, async () => {
        const state = sessions.get(input.sessionID);
        if (!state || rules.length === 0 || state.ignored) return;
        state.agent = input.agent;
        state.model = modelRef(input.model);
        // The later `session.compacted` event is for this same compaction: it joins this delivery.
        startWindow(state);
        const run = tracker.deliver(input.sessionID, "session.compacted");
        // Bounded: a compaction whose event never comes leaves at most a few behind.
        state.compactionRuns = [...state.compactionRuns.slice(-7), run];
        await withTimeout(run, limits.compactionWaitMs);
      }),

    onToolBefore: (input, output) =>
      guard("tool.execute.before", input.sessionID, async () => {
        const state = sessions.get(input.sessionID);
        if (!state || rules.length === 0 || state.ignored) return;
        lastActiveSession = input.sessionID;
        // Intent: a file about to be written or created counts before it exists.
        takeInToolCall(state, input, output.args);
      }),

    onToolAfter: (input, output) =>
      guard("tool.execute.after", input.sessionID, async () => {
        const state = sessions.get(input.sessionID);
        if (!state || state.ignored || input.tool === "rule") return;
        await refresh();
        if (rules.length === 0) return;
        const result = typeof output.output === "string" ? output.output : "";
        takeInToolCall(state, input, input.args, result);
        if (!tracker.isDelivered(input.sessionID)) return; // the first delivery will carry them
        const composed = compose(input.sessionID, state);
        if (!composed || composed.included.length === 0) return;
        // The model reads the tool result in its very next request: no extra turn, no silent prompt mid-turn.
        output.output = result === "" ? composed.text : `${result}\n\n${composed.text}`;
        recordDelivered(state, composed);
        log.debug(`Delivered ${composed.included.length} rules to session ${input.sessionID} with the result of ${input.tool}`, { sessionID: input.sessionID });
      }),

    readRule(sessionID, name) {
      const answer = answerRuleRequest(rules, name);
      const state = sessions.get(sessionID);
      if (answer.rule && state) {
        state.delivered.set(answer.rule.name, answer.rule);
        if (!state.activated.has(answer.rule.name)) state.activated.set(answer.rule.name, "read with the rule tool");
      }
      return answer.output;
    },

    report(sessionID) {
      const state = sessions.peek(sessionID);
      if (!state) return undefined;
      return {
        sessionID,
        files: [...state.files].sort(),
        active: [...state.activated].map(([name, reason]) => ({ name, reason })),
        delivered: [...state.delivered.keys()].sort(),
      };
    },
  };
}

/** OpenCode's session info names a model `{ providerID, id }`; prompts take `{ providerID, modelID }`. */
function modelRef(model: { providerID: string; id?: string; modelID?: string } | undefined): ModelRef | undefined {
  const modelID = model?.modelID ?? model?.id;
  return model && modelID ? { providerID: model.providerID, modelID } : undefined;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
