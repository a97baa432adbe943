/**
 * The engine: discovers the rules once at start and answers OpenCode's hooks.
 * Every handler catches its own errors: nothing the plugin does may break
 * the user's session.
 *
 * Delivery timeline of a session (see README, "How delivery works"):
 * 1. `session.created` starts the silent rules prompt (OpenCode does not await it).
 * 2. The first user message's `chat.message` (awaited by OpenCode) waits for
 *    that delivery, then dates itself after the rules so the model reads them
 *    first. If the rules could not be stored in time, they go into that user
 *    message as a synthetic part instead, and a late rules prompt is ignored.
 * 3. Automatic compaction: delivered from `experimental.compaction.autocontinue`,
 *    before OpenCode's "Continue" message; manual compaction: from `session.compacted`.
 */
import type { Event, Part, UserMessage } from "@opencode-ai/sdk";
import { lastUserChoice, rulesInWindow, type HistoryMessage } from "./deliver/history.js";
import { partIdBefore } from "./deliver/part-id.js";
import { markerOf, MARKER_KEY, sendRulesPrompt, type OpencodeClient, type RulesMarker } from "./deliver/prompt.js";
import { createSessionTracker, type DeliveryTrigger, type RetryPolicy } from "./deliver/sessions.js";
import type { Logger } from "./log.js";
import type { RulebookOptions } from "./options.js";
import { composeRulesMessage } from "./render/compose.js";
import type { RuleFs } from "./sources/fs.js";
import { loadRules, type LoadedRules } from "./sources/load.js";

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
}

type ModelRef = { providerID: string; modelID: string };

interface SessionState {
  agent?: string;
  model?: ModelRef;
  /** When the rules message was stored: user messages of this window must sort after it. */
  rulesCreated?: number;
  /** The rules went into a user message because the silent prompt was late or failed. */
  deliveredInUserMessage?: boolean;
  /** `session.created` was seen for a new, empty session: no history to read back. */
  knownEmpty?: boolean;
  /** The autocontinue hook already re-delivered for the compaction now ending. */
  compactionServed?: boolean;
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

export interface Rulebook {
  loaded: LoadedRules;
  onEvent(event: Event): Promise<void>;
  onChatMessage(input: ChatMessageInput, output: { message: UserMessage; parts: Part[] }): Promise<void>;
  onCompactionAutocontinue(input: CompactionInput): Promise<void>;
}

/** OpenCode names a forked session `<title> (fork #n)`; its history, rules included, is copied after `session.created`. */
const FORK_TITLE = /\(fork #\d+\)$/;

export async function startRulebook(deps: EngineDeps): Promise<Rulebook> {
  const { client, log, options } = deps;
  const loaded = await loadRules({ ...deps, maxRuleBytes: options.maxRuleBytes }, { sources: options.sources });
  for (const file of loaded.files) log.debug(`Discovered ${file.scope} rule: ${file.relPath}`, { path: file.path });
  for (const { rule, by } of loaded.shadowed) log.debug(`Rule ${rule.name} (${rule.displayPath}) is shadowed by ${by.displayPath}`, { path: rule.path });
  for (const warning of loaded.warnings) {
    log.warn(`${warning.path}${warning.line ? `:${warning.line}` : ""}: ${warning.message}`, { path: warning.path, line: warning.line });
  }
  const { rules } = loaded;
  const sessions = new Map<string, SessionState>();
  const stateOf = (id: string) => {
    let state = sessions.get(id);
    if (!state) sessions.set(id, (state = {}));
    return state;
  };

  /** The rules a session gets now, rendered; undefined when none apply. */
  const messageFor = (trigger: string): { text: string; marker: RulesMarker } | undefined => {
    const composed = composeRulesMessage(rules, { files: [] }, { listOnRequest: true, maxBytes: options.maxMessageBytes });
    if (!composed) return undefined;
    return { text: composed.text, marker: { kind: "rules", rules: composed.included.map(({ rule }) => rule.name), trigger } };
  };

  const readHistory = async (sessionID: string): Promise<HistoryMessage[]> => {
    const result = await client.session.messages({ path: { id: sessionID } });
    if (result.error !== undefined || !Array.isArray(result.data)) throw new Error(`reading the history of session ${sessionID} failed (${result.response?.status})`);
    return result.data as unknown as HistoryMessage[];
  };

  const tracker = createSessionTracker({
    retry: deps.retry,
    async send(sessionID, trigger) {
      const message = messageFor(trigger);
      if (!message) return;
      const state = stateOf(sessionID);
      if (!state.agent && !state.knownEmpty) {
        // A prompt without the session's agent would switch it to the default agent.
        Object.assign(state, lastUserChoice(await readHistory(sessionID).catch(() => [])));
      }
      state.deliveredInUserMessage = false;
      const stored = await sendRulesPrompt(client, { sessionID, ...message, agent: state.agent, model: state.model });
      state.rulesCreated = stored.created;
      log.debug(`Delivered ${message.marker.rules.length} rules to session ${sessionID} on ${trigger}`, { sessionID, rules: message.marker.rules });
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

  /** Puts the rules into the user's message itself, before the user's words. */
  const addRulesToUserMessage = (sessionID: string, output: { message: UserMessage; parts: Part[] }) => {
    const message = messageFor("chat.message");
    if (!message) return;
    const part = {
      id: partIdBefore(output.parts.map((existing) => existing.id)),
      sessionID,
      messageID: output.message.id,
      type: "text" as const,
      text: message.text,
      synthetic: true,
      metadata: { [MARKER_KEY]: message.marker },
    };
    output.parts.unshift(part);
    tracker.markDelivered(sessionID);
    stateOf(sessionID).deliveredInUserMessage = true;
    log.debug(`Delivered ${message.marker.rules.length} rules to session ${sessionID} inside its user message`, { sessionID });
  };

  return {
    loaded,
    async onEvent(event) {
      try {
        if (event.type === "session.created") {
          const info = event.properties.info as typeof event.properties.info & { agent?: string; model?: { providerID: string; id?: string; modelID?: string } };
          if (rules.length === 0 || (info.parentID && !options.subagents)) return;
          const state = stateOf(info.id);
          state.agent ??= info.agent;
          state.model ??= modelRef(info.model);
          if (FORK_TITLE.test(info.title ?? "")) return; // read back from its history at its first message
          state.knownEmpty = true;
          await tracker.deliver(info.id, "session.created");
        } else if (event.type === "session.compacted") {
          if (rules.length === 0) return;
          const state = stateOf(event.properties.sessionID);
          if (state.compactionServed) {
            state.compactionServed = false;
            return;
          }
          await tracker.deliver(event.properties.sessionID, "session.compacted");
        } else if (event.type === "session.deleted") {
          sessions.delete(event.properties.info.id);
          tracker.forget(event.properties.info.id);
        }
      } catch (error) {
        log.error(`Handling ${event.type} failed: ${errorText(error)}`, { event: event.type, error: errorText(error) });
      }
    },

    async onChatMessage(input, output) {
      try {
        const state = stateOf(input.sessionID);
        const own = output.parts.find((part) => markerOf(part as { metadata?: Record<string, unknown> }));
        if (own) {
          // Our own silent prompt. If the rules already went into a user message, this late copy stays out of the model's sight.
          if (state.deliveredInUserMessage) (own as { ignored?: boolean }).ignored = true;
          return;
        }
        state.agent = output.message.agent ?? input.agent ?? state.agent;
        state.model = output.message.model ?? input.model ?? state.model;
        if (rules.length === 0) return;
        const running = tracker.inFlight(input.sessionID);
        if (running) await withTimeout(running, deps.firstMessageWaitMs ?? 5000);
        if (tracker.isDelivered(input.sessionID)) {
          // Messages are ordered by creation time: the user's must come after the rules.
          if (state.rulesCreated !== undefined && output.message.time.created <= state.rulesCreated) {
            output.message.time.created = state.rulesCreated + 1;
          }
          return;
        }
        if (!state.knownEmpty && rulesInWindow(await readHistory(input.sessionID)).length > 0) {
          tracker.markDelivered(input.sessionID); // a fork, or a session from before a restart
          return;
        }
        addRulesToUserMessage(input.sessionID, output);
      } catch (error) {
        log.error(`Handling chat.message for session ${input.sessionID} failed: ${errorText(error)}`, { sessionID: input.sessionID, error: errorText(error) });
      }
    },

    async onCompactionAutocontinue(input) {
      try {
        if (rules.length === 0) return;
        const state = stateOf(input.sessionID);
        state.agent = input.agent;
        state.model = modelRef(input.model);
        const result = await tracker.deliver(input.sessionID, "session.compacted");
        // The later `session.compacted` event is for this same compaction.
        state.compactionServed = result.delivered;
      } catch (error) {
        log.error(`Re-delivering rules after compaction of session ${input.sessionID} failed: ${errorText(error)}`, { sessionID: input.sessionID, error: errorText(error) });
      }
    },
  };
}

/** OpenCode's session info names a model `{ providerID, id }`; prompts take `{ providerID, modelID }`. */
function modelRef(model: { providerID: string; id?: string; modelID?: string } | undefined): ModelRef | undefined {
  const modelID = model?.modelID ?? model?.id;
  return model && modelID ? { providerID: model.providerID, modelID } : undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
