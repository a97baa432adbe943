/**
 * The engine: discovers the rules once at start, and answers OpenCode's
 * hooks. Every handler catches its own errors: nothing the plugin does may
 * break the user's session.
 */
import type { Event, Part, UserMessage } from "@opencode-ai/sdk";
import { createSessionTracker, type DeliveryTrigger, type RetryPolicy } from "./deliver/sessions.js";
import { markerOf, MARKER_KEY, sendRulesPrompt, type OpencodeClient, type RulesMarker } from "./deliver/prompt.js";
import type { Logger } from "./log.js";
import type { RulebookOptions } from "./options.js";
import { renderRulesMessage } from "./render/message.js";
import { activeRulesFor } from "./select/active.js";
import { discoverRules, type Discovery } from "./sources/discover.js";
import type { RuleFs } from "./sources/fs.js";
import { nativeSource } from "./sources/native.js";
import type { Rule } from "./rule/rule.js";

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

interface SessionInfo {
  agent?: string;
  model?: ModelRef;
  /** When the rules message was stored: the first user message must sort after it. */
  rulesCreated?: number;
}

export interface Rulebook {
  discovery: Discovery;
  onEvent(event: Event): Promise<void>;
  onChatMessage(input: { sessionID: string; agent?: string; model?: ModelRef }, output: { message: UserMessage; parts: Part[] }): Promise<void>;
}

export async function startRulebook(deps: EngineDeps): Promise<Rulebook> {
  const { client, log, options } = deps;
  const discovery = await discoverRules({ ...deps, maxRuleBytes: options.maxRuleBytes }, [nativeSource]);
  for (const file of discovery.files) log.debug(`Discovered ${file.scope} rule: ${file.relPath}`, { path: file.path });
  for (const warning of discovery.warnings) {
    log.warn(`${warning.path}${warning.line ? `:${warning.line}` : ""}: ${warning.message}`, { path: warning.path, line: warning.line });
  }
  const rules = orderForMessage(discovery.rules);
  const sessions = new Map<string, SessionInfo>();
  const sessionInfo = (id: string) => {
    let info = sessions.get(id);
    if (!info) sessions.set(id, (info = {}));
    return info;
  };

  /** The rules a session gets now, rendered; undefined when none apply. */
  const messageFor = (trigger: string): { text: string; marker: RulesMarker } | undefined => {
    const active = activeRulesFor(rules, { files: [] });
    if (active.length === 0) return undefined;
    return {
      text: renderRulesMessage(active.map(({ rule }) => rule)),
      marker: { kind: "rules", rules: active.map(({ rule }) => rule.name), trigger },
    };
  };

  const tracker = createSessionTracker({
    retry: deps.retry,
    async send(sessionID, trigger) {
      const message = messageFor(trigger);
      if (!message) return;
      const info = sessionInfo(sessionID);
      const stored = await sendRulesPrompt(client, { sessionID, ...message, agent: info.agent, model: info.model });
      info.rulesCreated = stored.created;
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

  const deliver = async (sessionID: string, trigger: DeliveryTrigger) => {
    if (rules.length === 0) return; // nothing to send, ever
    await tracker.deliver(sessionID, trigger);
  };

  return {
    discovery,
    async onEvent(event) {
      try {
        if (event.type === "session.created") {
          const info = event.properties.info as typeof event.properties.info & { agent?: string; model?: ModelRef };
          if (info.parentID && !options.subagents) return;
          const known = sessionInfo(info.id);
          known.agent ??= info.agent;
          known.model ??= info.model;
          await deliver(info.id, "session.created");
        } else if (event.type === "session.compacted") {
          await deliver(event.properties.sessionID, "session.compacted");
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
        if (output.parts.some((part) => markerOf(part as { metadata?: Record<string, unknown> }))) return; // our own rules prompt
        const info = sessionInfo(input.sessionID);
        info.agent = output.message.agent ?? input.agent ?? info.agent;
        info.model = output.message.model ?? input.model ?? info.model;
        if (rules.length === 0) return;
        const running = tracker.inFlight(input.sessionID);
        if (running) await withTimeout(running, deps.firstMessageWaitMs ?? 5000);
        if (tracker.isDelivered(input.sessionID)) {
          // Messages are ordered by creation time: the user's must come after the rules.
          if (info.rulesCreated !== undefined && output.message.time.created <= info.rulesCreated) {
            output.message.time.created = info.rulesCreated + 1;
          }
          return;
        }
        void MARKER_KEY;
      } catch (error) {
        log.error(`Handling chat.message for session ${input.sessionID} failed: ${errorText(error)}`, { sessionID: input.sessionID, error: errorText(error) });
      }
    },
  };
}

/** Global rules first, then project rules (root folders before nearer ones), as discovered. */
function orderForMessage(rules: Rule[]): Rule[] {
  return [...rules.filter((rule) => rule.scope === "global"), ...rules.filter((rule) => rule.scope === "project")];
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
