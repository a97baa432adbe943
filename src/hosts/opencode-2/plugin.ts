/**
 * The OpenCode 2 adapter (`@opencode/plugin`, Promise API): OpenCode 2's
 * hooks, turned into the engine's calls (`engine/host.ts`). OpenCode 2's
 * shapes live in this folder only (`api.ts` declares them).
 *
 * How the rules reach the model. OpenCode 2 offers three ways: durable
 * synthetic input (`ctx.session.synthetic`), amending a tool's result
 * (`execute.after`), and editing each request (`context`). The prompt cache
 * wants every request to be the one before plus new messages, and each rule
 * must be in the model's sight exactly once. This adapter edits each request:
 * - a synthetic message admitted from a hook or event lands at a step
 *   boundary (from an event or the `context` hook it costs an extra model
 *   step), its id is spent for the whole history (after a compaction checkpoint
 *   the same rules need new ids), and it is kept in history, so the checkpoint's
 *   serialized recent conversation carries an old copy beside the new one;
 * - an amended tool result is stored too (the same copy in the checkpoint),
 *   and OpenCode truncates long results after the hook, rules included;
 * - a request edit is never stored: the rules are put back into every request
 *   at the place they were first given (`request-rules.ts`), so the bytes of
 *   earlier messages never change; the summary request of a compaction never
 *   sees them, so after the checkpoint the re-delivery is the only copy.
 * The system prompt is never touched.
 */
import { RULE_NAME_DESCRIPTION, RULE_TOOL_DESCRIPTION, RULE_TOOL_NAME } from "../../deliver/rule-tool.js";
import type { RunningRulebook } from "../../engine/rulebook.js";
import { errorText, guard, withTimeout } from "../../engine/timing.js";
import type { Logger } from "../../log.js";
import type { ModelRef } from "../../select/scope.js";
import { startForHost } from "../start.js";
import type { Cleanup, LlmMessage, PluginContext, SessionContext, SessionInfo, SessionPrompt, ToolFinished } from "./api.js";
import { consoleLogSink } from "./log-sink.js";
import { placeRules } from "./request-rules.js";
import { ledgerPort, MAX_ENTRIES, rulesLedger, type RulesLedger } from "./session-port.js";

/** How long a hook waits for the host's session info or the plugin's storage before going on without. */
const HOST_CALL_MS = 1000;

export async function setupRulebook(ctx: PluginContext): Promise<Cleanup | undefined> {
  let ledger: RulesLedger | undefined;
  const { log, rulebook } = await startForHost({
    rawOptions: ctx.options,
    sink: consoleLogSink,
    port: (log) => {
      ledger = rulesLedger(ctx.storage, log);
      return ledgerPort(ledger);
    },
    directory: ctx.location.directory,
    worktree: ctx.location.project?.directory ?? ctx.location.directory,
    // Recording an entry races nothing: a new session's rules are in its first request, whenever it comes.
    creationGraceMs: 0,
  });
  if (!rulebook || !ledger) return undefined;
  return registerHooks(ctx, rulebook, ledger, log);
}

/** OpenCode 2's hooks over a running engine. Each catches its own errors: OpenCode counts a throwing hook as a crash of the request. */
async function registerHooks(ctx: PluginContext, rulebook: RunningRulebook, ledger: RulesLedger, log: Logger): Promise<Cleanup> {
  const met = new Map<string, Promise<void>>();
  /** The first hook of a session (its first prompt, or a request of a session from before a restart) introduces it to the engine. */
  const meet = (sessionID: string, seen: { agent?: string; model?: ModelRef }) => {
    let meeting = met.get(sessionID);
    if (!meeting) {
      // A meeting that failed is tried again by the session's next hook.
      meeting = introduce(sessionID, seen).catch((error) => {
        met.delete(sessionID);
        throw error;
      });
      met.set(sessionID, meeting);
    }
    return meeting;
  };
  const introduce = async (sessionID: string, seen: { agent?: string; model?: ModelRef }) => {
    const [info, restored] = await Promise.all([sessionInfo(ctx, sessionID, log), withTimeout(ledger.restore(sessionID), HOST_CALL_MS)]);
    await rulebook.sessionCreated({
      id: sessionID,
      parentID: info?.parentID,
      agent: info?.agent ?? seen.agent,
      model: modelRef(info?.model) ?? seen.model,
      hasHistory: restored === true,
    });
  };

  /** Prompts whose rules wait for the first request that carries them: OpenCode 2 names the agent and model only there. */
  const arriving = promptsInArrival();

  const onPrompt = (event: SessionPrompt) =>
    guard(log, "prompt", event.sessionID, undefined, async () => {
      await meet(event.sessionID, {});
      arriving.add(event.sessionID, {
        messageID: event.messageID,
        texts: typeof event.prompt.text === "string" ? [event.prompt.text] : [],
        files: (event.prompt.files ?? []).flatMap(attachedFile),
      });
    });

  const onContext = (event: SessionContext) =>
    guard(log, "context", event.sessionID, undefined, async () => {
      const { sessionID } = event;
      const seen = { agent: event.agent, model: modelRef(event.model) };
      await meet(sessionID, seen);
      if (placeRules(event.messages, ledger.entries(sessionID)).moved || ledger.entries(sessionID).length > MAX_ENTRIES) {
        // A compaction checkpoint (or a revert) left the rules' places out of the request: the window starts again, empty.
        ledger.startWindow(sessionID);
        await rulebook.compactionEnding(sessionID, seen);
      }
      // A user's message reaches the model here first, as the agent and model this request names (the user may have switched since the last).
      for (const prompt of arriving.takeArrived(sessionID, event.messages)) {
        const answer = await rulebook.userMessage({ sessionID, texts: prompt.texts, files: prompt.files, ...seen, created: Date.now() });
        // Before the user's words, in every request from this one on.
        if (answer.rules) ledger.add(sessionID, { text: answer.rules.text, marker: answer.rules.marker, awaits: prompt.messageID });
      }
      const placement = placeRules(event.messages, ledger.entries(sessionID));
      if (placement.moved) return;
      ledger.update(sessionID, placement.entries);
      event.messages = placement.messages;
    });

  const onToolFinished = (event: ToolFinished) =>
    guard(log, "execute.after", event.sessionID, undefined, async () => {
      if (event.status !== "completed") return;
      const rules = await rulebook.toolFinished(event.sessionID, event.tool, event.input, resultText(event.result.content, event.result.output));
      // Placed after this step's tool results, in the request that reads them.
      if (rules !== undefined) ledger.add(event.sessionID, rules);
    });

  const registrations = await Promise.all([
    ctx.session.hook("prompt", onPrompt),
    ctx.session.hook("context", onContext),
    ctx.tool.hook("execute.before", (event) => rulebook.toolCalled(event.sessionID, event.input)),
    ctx.tool.hook("execute.after", onToolFinished),
    ctx.tool.transform((editor) =>
      editor.add({
        name: RULE_TOOL_NAME,
        description: RULE_TOOL_DESCRIPTION,
        input: {
          type: "object",
          properties: { name: { type: "string", description: RULE_NAME_DESCRIPTION } },
          required: ["name"],
        },
        // Offered to the model itself, not only through OpenCode's code tool.
        options: { codemode: false },
        execute: async (input, context) => ({ content: rulebook.readRule(context.sessionID, String((input as { name?: unknown } | undefined)?.name ?? "")).output }),
      }),
    ),
  ]);

  const stop = new AbortController();
  void followSessions(
    ctx,
    stop.signal,
    (sessionID) => {
      rulebook.sessionDeleted(sessionID);
      ledger.forget(sessionID);
      arriving.forget(sessionID);
      met.delete(sessionID);
    },
    log,
  );

  return async () => {
    stop.abort();
    await Promise.all(registrations.map((registration) => registration.dispose().catch(() => undefined)));
    rulebook.dispose();
    await ledger.settled();
    ledger.close();
    arriving.forget();
    met.clear();
    await log.flush();
  };
}

/** A prompt as the `prompt` hook saw it, until a request carries its message. */
interface WaitingPrompt {
  messageID: string;
  texts: string[];
  files: string[];
}

/** Prompts one session may have waiting: a few queued or steered messages; past this the oldest goes (its rules come with the next). */
const MAX_WAITING = 32;

/** The prompts admitted and not yet in a request, by session. */
function promptsInArrival() {
  const waiting = new Map<string, WaitingPrompt[]>();
  return {
    add(sessionID: string, prompt: WaitingPrompt) {
      const list = [...(waiting.get(sessionID) ?? []), prompt];
      waiting.set(sessionID, list.slice(-MAX_WAITING));
    },
    /**
     * The prompts whose message this request carries, in order. The others
     * wait: a queued message reaches a request only when the turn before is
     * over, whatever came after it (a withdrawn one waits until it is the
     * oldest of too many).
     */
    takeArrived(sessionID: string, messages: readonly LlmMessage[]): WaitingPrompt[] {
      const list = waiting.get(sessionID);
      if (!list) return [];
      const ids = new Set(messages.flatMap((message) => (message.id === undefined ? [] : [message.id])));
      const arrived = list.filter((prompt) => ids.has(prompt.messageID));
      const still = list.filter((prompt) => !ids.has(prompt.messageID));
      if (still.length > 0) waiting.set(sessionID, still);
      else waiting.delete(sessionID);
      return arrived;
    },
    forget(sessionID?: string) {
      if (sessionID === undefined) waiting.clear();
      else waiting.delete(sessionID);
    },
  };
}

/** Frees a deleted session's state. OpenCode does not await its subscribers; nothing here needs it to. */
async function followSessions(ctx: PluginContext, signal: AbortSignal, deleted: (sessionID: string) => void, log: Logger): Promise<void> {
  try {
    for await (const event of ctx.event.subscribe({ signal })) {
      const sessionID = event.data?.sessionID;
      if (event.type === "session.deleted" && typeof sessionID === "string") deleted(sessionID);
    }
  } catch (error) {
    if (!signal.aborted) log.warn(`Stopped following OpenCode's events (${errorText(error)}); deleted sessions are freed when OpenCode stops`);
  }
}

/** The session's parent (a subagent's session has one), agent and model; none when OpenCode does not answer in time. */
async function sessionInfo(ctx: PluginContext, sessionID: string, log: Logger): Promise<SessionInfo | undefined> {
  try {
    return await withTimeout(ctx.session.get({ sessionID }), HOST_CALL_MS);
  } catch (error) {
    log.warn(`Could not read session ${sessionID} from OpenCode (${errorText(error)}); treating it as a top-level session`, { sessionID });
    return undefined;
  }
}

/** The text a tool result gives the model: its content, or its output when the content is empty. */
function resultText(content: unknown, output: unknown): string {
  if (typeof content === "string" && content !== "") return content;
  if (Array.isArray(content) && content.length > 0) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("\n");
  return output === undefined ? "" : typeof output === "string" ? output : JSON.stringify(output);
}

/** A prompt's attached file: a path or a `file://` URL, under whichever key OpenCode gives it. */
function attachedFile(file: { uri?: string; url?: string; path?: string }): string[] {
  const value = file.path ?? file.uri ?? file.url;
  return typeof value === "string" && (file.path !== undefined || value.startsWith("file://")) ? [value] : [];
}

/** OpenCode 2 names a model `{ providerID, id }`; the engine, `{ providerID, modelID }`. */
function modelRef(model: { providerID: string; id: string } | undefined): ModelRef | undefined {
  return model ? { providerID: model.providerID, modelID: model.id } : undefined;
}
