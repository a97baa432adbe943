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
 */
import type { Event, Part, UserMessage } from "@opencode-ai/sdk";
import { randomUUID } from "node:crypto";
import { compactionSummaryTime, lastUserChoice, rulesInWindow, storedDelivery, type HistoryMessage } from "./deliver/history.js";
import { partIdBefore } from "./deliver/part-id.js";
import { markerOf, MARKER_KEY, sendRulesPrompt, type OpencodeClient, type RulesMarker } from "./deliver/prompt.js";
import { answerRuleRequest } from "./deliver/rule-tool.js";
import { createSessionTracker, type RetryPolicy } from "./deliver/sessions.js";
import type { Logger } from "./log.js";
import type { RulebookOptions } from "./options.js";
import { composeRulesMessage, type ComposedMessage } from "./render/compose.js";
import { matchNewFiles } from "./select/active.js";
import { mentionedRuleNames } from "./select/mentions.js";
import { normalisePath, pathsNamedInPrompt, pathsFromToolArgs, pathsFromToolOutput } from "./session/working-set.js";
import { sessionStore, type ModelRef, type SessionReport, type SessionState } from "./session/state.js";
import type { RuleFs } from "./sources/fs.js";
import { startLiveRules } from "./sources/live-rules.js";
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
}

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
  const root = projectRoot(deps.directory, deps.worktree);
  const live = await startLiveRules({ ...deps, maxRuleBytes: options.maxRuleBytes }, { sources: options.sources, extraDirs: options.extraDirs }, log);
  let rules = live.current().rules;
  let ruleNames = new Set(rules.map((rule) => rule.name));
  const sessions = sessionStore();

  /** Picks up changed rule files; sessions holding a changed or deleted rule are told at their next delivery. */
  const refresh = async () => {
    const changes = await live.refresh();
    if (!changes) return;
    rules = live.current().rules;
    ruleNames = new Set(rules.map((rule) => rule.name));
    for (const state of sessions.all()) {
      // Globs may have changed: match the whole working set again, once.
      state.fileMatches.clear();
      state.filesMatched = 0;
      for (const name of changes.changed) {
        if (state.delivered.delete(name)) state.replacing.add(name);
      }
      for (const name of changes.removed) {
        state.activated.delete(name);
        if (state.delivered.delete(name)) state.removed.add(name);
      }
    }
  };
  /** The last session seen working: `file.edited` names no session. */
  let lastActiveSession: string | undefined;

  /**
   * The rules the session does not hold yet, given what is now in its context.
   * Records activations (with the debug line) and, once sent, marks them delivered.
   */
  const compose = (sessionID: string, prompt?: string): ComposedMessage | undefined => {
    const state = sessions.get(sessionID);
    if (state.filesMatched < state.files.size) {
      // Only files new since the last look are matched: an event's cost does not grow with the working set.
      matchNewFiles(rules, [...state.files].slice(state.filesMatched), state.fileMatches);
      state.filesMatched = state.files.size;
    }
    const composed = composeRulesMessage(
      rules,
      { files: [], fileMatches: state.fileMatches, prompt, mentioned: state.mentioned, activated: state.activated },
      {
        alreadyDelivered: state.delivered,
        listOnRequest: !state.listedOnRequest,
        maxBytes: options.maxMessageBytes,
        replacing: state.replacing,
        removed: [...state.removed],
      },
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
    for (const { rule } of composed.included) {
      state.delivered.add(rule.name);
      state.replacing.delete(rule.name);
    }
    state.removed.clear();
    if (composed.onRequest.length > 0) state.listedOnRequest = true;
  };

  const readHistory = async (sessionID: string): Promise<HistoryMessage[]> => {
    const result = await client.session.messages({ path: { id: sessionID } });
    if (result.error !== undefined || !Array.isArray(result.data)) throw new Error(`reading the history of session ${sessionID} failed (${result.response?.status})`);
    return result.data as unknown as HistoryMessage[];
  };

  const tracker = createSessionTracker({
    retry: deps.retry,
    async send(sessionID, trigger) {
      const state = sessions.get(sessionID);
      if (trigger === "session.compacted") {
        // Compaction dropped everything delivered before it from the model's context.
        state.delivered.clear();
        state.replacing.clear();
        state.removed.clear();
        state.listedOnRequest = false;
      }
      const composed = compose(sessionID);
      if (!composed) return;
      const compacted = trigger === "session.compacted";
      const needsHistory = compacted || (!state.agent && !state.knownEmpty) || state.unconfirmed.size > 0;
      const history = needsHistory ? await readHistory(sessionID).catch(() => undefined) : undefined;
      // A prompt without the session's agent would switch it to the default agent.
      if (history && !state.agent) Object.assign(state, lastUserChoice(history));
      // After compaction OpenCode may already be working again (a replayed prompt): the rules must not be its newest message.
      const summaryTime = compacted && history ? compactionSummaryTime(history) : undefined;
      state.dateRulesAt = summaryTime !== undefined ? summaryTime + 1 : undefined;
      // An earlier attempt that timed out may have been stored after all: never send the rules twice.
      const earlier = history && storedDelivery(history, state.unconfirmed);
      state.deliveredInUserMessage = false;
      let created: number;
      if (earlier) created = earlier.created ?? Date.now();
      else {
        const delivery = randomUUID();
        state.unconfirmed.add(delivery);
        const marker = { ...markerFor(composed, trigger), delivery };
        try {
          created = (await sendRulesPrompt(client, { sessionID, text: composed.text, marker, agent: state.agent, model: state.model }, deps.promptTimeoutMs)).created;
        } catch (error) {
          // Only a timeout leaves the outcome unknown; any other failure was an answer.
          if ((error as Error).name !== "TimeoutError" && (error as Error).name !== "AbortError") state.unconfirmed.delete(delivery);
          throw error;
        }
      }
      state.unconfirmed.clear();
      state.rulesCreated = created;
      recordDelivered(state, composed);
      log.debug(`Delivered ${composed.included.length} rules to session ${sessionID} on ${trigger}`, { sessionID, rules: composed.included.map(({ rule }) => rule.name) });
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
  const takeInPrompt = async (state: SessionState, parts: Part[]): Promise<string> => {
    const texts: string[] = [];
    for (const part of parts) {
      if (part.type === "text" && !part.synthetic) texts.push(part.text);
      if (part.type === "file") {
        const source = (part as { source?: { path?: string } }).source;
        const raw = source?.path ?? (part.url.startsWith("file://") ? part.url : undefined);
        if (raw) state.files.add(normalisePath(raw, deps.directory, root));
      }
    }
    const prompt = texts.join("\n");
    for (const name of mentionedRuleNames(prompt, ruleNames)) state.mentioned.add(name);
    for (const { path, absolute } of pathsNamedInPrompt(prompt, ruleNames, { directory: deps.directory, projectRoot: root, home: deps.home })) {
      if (await deps.fs.stat(absolute).then(() => true, () => false)) state.files.add(path);
    }
    return prompt;
  };

  const takeInToolCall = (state: SessionState, input: ToolInput, args: unknown, output?: string) => {
    for (const raw of pathsFromToolArgs(args)) state.files.add(normalisePath(raw, deps.directory, root));
    if (output) for (const raw of pathsFromToolOutput(input.tool, output, root)) state.files.add(normalisePath(raw, deps.directory, root));
  };

  /** Puts rules into the user's message itself, before the user's words. */
  const addToUserMessage = (sessionID: string, output: { message: UserMessage; parts: Part[] }, composed: ComposedMessage, trigger: string) => {
    output.parts.unshift({
      id: partIdBefore(output.parts.map((existing) => existing.id)),
      sessionID,
      messageID: output.message.id,
      type: "text",
      text: composed.text,
      synthetic: true,
      metadata: { [MARKER_KEY]: markerFor(composed, trigger) },
    });
    recordDelivered(sessions.get(sessionID), composed);
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
    dispose: () => live.close(),

    onEvent: (event) =>
      guard(event.type, undefined, async () => {
        if (event.type === "session.created" || event.type === "session.compacted") await refresh();
        if (rules.length === 0) return;
        if (event.type === "session.created") {
          const info = event.properties.info as typeof event.properties.info & { agent?: string; model?: { providerID: string; id?: string; modelID?: string } };
          const state = sessions.get(info.id);
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
          await sleep(deps.creationGraceMs ?? CREATION_GRACE_MS);
          await tracker.deliver(info.id, "session.created");
        } else if (event.type === "session.compacted") {
          const state = sessions.get(event.properties.sessionID);
          if (state.ignored) return;
          if (state.compactionServed) {
            state.compactionServed = false;
            return;
          }
          await tracker.deliver(event.properties.sessionID, "session.compacted");
        } else if (event.type === "session.deleted") {
          sessions.delete(event.properties.info.id);
          tracker.forget(event.properties.info.id);
        } else if (event.type === "file.edited" && lastActiveSession) {
          // Delivered with the session's next tool result or message.
          sessions.get(lastActiveSession).files.add(normalisePath(event.properties.file, deps.directory, root));
        }
      }),

    onChatMessage: (input, output) =>
      guard("chat.message", input.sessionID, async () => {
        const state = sessions.get(input.sessionID);
        const own = output.parts.find((part) => markerOf(part as { metadata?: Record<string, unknown> }));
        if (own) {
          // Our own silent prompt. If the rules already went into a user message, this late copy stays out of the model's sight.
          if (state.deliveredInUserMessage) (own as { ignored?: boolean }).ignored = true;
          if (state.dateRulesAt !== undefined && state.dateRulesAt < output.message.time.created) output.message.time.created = state.dateRulesAt;
          state.dateRulesAt = undefined;
          return;
        }
        await refresh();
        if (rules.length === 0 || state.ignored) return;
        lastActiveSession = input.sessionID;
        state.agent = output.message.agent ?? input.agent ?? state.agent;
        state.model = output.message.model ?? input.model ?? state.model;
        const running = tracker.inFlight(input.sessionID);
        if (running) await withTimeout(running, deps.firstMessageWaitMs ?? 5000);
        if (!tracker.isDelivered(input.sessionID) && !state.knownEmpty) {
          // Unreadable history: deliver anyway; a rule read twice costs less than a rule missing.
          const history = await readHistory(input.sessionID).catch((error) => {
            log.warn(`Could not read the history of session ${input.sessionID} (${errorText(error)}); delivering the rules with this message`, { sessionID: input.sessionID });
            return [];
          });
          const markers = rulesInWindow(history);
          if (markers.length > 0) {
            // A fork, or a session from before a restart: its window already holds these rules.
            for (const marker of markers) for (const name of marker.rules) state.delivered.add(name);
            state.listedOnRequest = true;
            tracker.markDelivered(input.sessionID);
          }
        }
        if (tracker.isDelivered(input.sessionID) && state.rulesCreated !== undefined && output.message.time.created <= state.rulesCreated) {
          // Messages are ordered by creation time: the user's must come after the rules.
          output.message.time.created = state.rulesCreated + 1;
        }
        const prompt = await takeInPrompt(state, output.parts);
        const first = !tracker.isDelivered(input.sessionID);
        const composed = compose(input.sessionID, prompt);
        if (composed) {
          addToUserMessage(input.sessionID, output, composed, first ? "chat.message" : "prompt");
          log.debug(`Delivered ${composed.included.length} rules to session ${input.sessionID} inside its user message`, { sessionID: input.sessionID });
        }
        if (first) {
          tracker.markDelivered(input.sessionID);
          state.deliveredInUserMessage = true;
        }
      }),

    onCompactionAutocontinue: (input) =>
      guard("experimental.compaction.autocontinue", input.sessionID, async () => {
        const state = sessions.get(input.sessionID);
        if (rules.length === 0 || state.ignored) return;
        state.agent = input.agent;
        state.model = modelRef(input.model);
        const result = await tracker.deliver(input.sessionID, "session.compacted");
        // The later `session.compacted` event is for this same compaction.
        state.compactionServed = result.delivered;
      }),

    onToolBefore: (input, output) =>
      guard("tool.execute.before", input.sessionID, async () => {
        const state = sessions.get(input.sessionID);
        if (rules.length === 0 || state.ignored) return;
        lastActiveSession = input.sessionID;
        // Intent: a file about to be written or created counts before it exists.
        takeInToolCall(state, input, output.args);
      }),

    onToolAfter: (input, output) =>
      guard("tool.execute.after", input.sessionID, async () => {
        const state = sessions.get(input.sessionID);
        if (state.ignored || input.tool === "rule") return;
        await refresh();
        if (rules.length === 0) return;
        takeInToolCall(state, input, input.args, typeof output.output === "string" ? output.output : undefined);
        if (!tracker.isDelivered(input.sessionID)) return; // the first delivery will carry them
        const composed = compose(input.sessionID);
        if (!composed || composed.included.length === 0) return;
        // The model reads the tool result in its very next request: no extra turn, no silent prompt mid-turn.
        output.output = `${output.output}\n\n${composed.text}`;
        recordDelivered(state, composed);
        log.debug(`Delivered ${composed.included.length} rules to session ${input.sessionID} with the result of ${input.tool}`, { sessionID: input.sessionID });
      }),

    readRule(sessionID, name) {
      const answer = answerRuleRequest(rules, name);
      if (answer.rule) {
        const state = sessions.get(sessionID);
        state.delivered.add(answer.rule.name);
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
        delivered: [...state.delivered].sort(),
      };
    },
  };
}

/** OpenCode's session info names a model `{ providerID, id }`; prompts take `{ providerID, modelID }`. */
function modelRef(model: { providerID: string; id?: string; modelID?: string } | undefined): ModelRef | undefined {
  const modelID = model?.modelID ?? model?.id;
  return model && modelID ? { providerID: model.providerID, modelID } : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
