/**
 * The OpenCode 2 adapter (`@opencode/plugin`, Promise API): OpenCode 2's
 * hooks, turned into the engine's calls (`engine/contract.ts`). OpenCode 2's
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
 *   the same rules need new ids), and it is kept in history (the checkpoint's recent conversation keeps an old copy);
 * - an amended tool result is stored too, and truncated after the hook, rules included;
 * - a request edit is never stored: the rules are put back into every request
 *   at the place they were first given (`request-rules.ts`), so the bytes of
 *   earlier messages never change; the summary request of a compaction never
 *   sees them, so after the checkpoint the re-delivery is the only copy. The system prompt is never touched.
 */
import { homedir } from "node:os";
import type { HostLabels } from "../../engine/contract.js";
import type { RunningRulebook } from "../../engine/rulebook.js";
import { errorText, guard, withTimeout } from "../../engine/timing.js";
import { fileLogSink, rulebookLogFile } from "../../log-file.js";
import type { Logger } from "../../log.js";
import type { ModelRef } from "../../select/scope.js";
import { modelRef } from "../opencode/model-ref.js";
import { RULE_TOOL_DESCRIPTION, RULE_TOOL_INPUT, RULE_TOOL_NAME, requestedRuleName } from "../opencode/rule-tool.js";
import { proposedCall } from "../opencode/tool-call.js";
import { touchedBy } from "../opencode/tool-touch.js";
import { startForHost } from "../start.js";
import { promptsInArrival } from "./arriving-prompts.js";
import type { Cleanup, PluginContext, SessionContext, SessionPrompt, ToolCalled, ToolFinished, ToolResult } from "./api.js";
import { followSessions, HOST_CALL_MS, registerAll, sessionInfo } from "./host-calls.js";
import { panelService, type PanelService } from "./panel-rpc.js";
import { placeRules } from "./request-rules.js";
import { ledgerPort, MAX_ENTRIES, rulesLedger, type RulesLedger } from "./session-port.js";
import { attachedFile, resultText, sessionOf } from "./shapes.js";

/** The `rule` tool's answer when the plugin fails to give one: the model goes on, and the log says why. */
export const RULE_TOOL_FAILED = "The rule could not be read (opencode-rulebook failed; its log says why). Go on without it.";

/** The engine's calls under OpenCode 2's names for what brings them, in log lines. */
export const OPENCODE_2_LABELS: HostLabels = {
  sessionSeen: "context (first request)",
  windowRestarted: "context (window moved)",
  userTurn: "context (prompt arrived)",
  toolAboutToRun: "execute.before",
  toolResult: "execute.after",
  ruleRequested: "rule tool",
};

/**
 * OpenCode 2 calls `setup` when it loads the plugin. It never throws: without
 * its engine or a hook the plugin does less, and says so in its log
 * (`opencode-rulebook.log` beside OpenCode's logs: OpenCode 2 gives plugins no
 * log API, and its server's stdout is read for its ready line).
 */
export async function setupRulebook(ctx: PluginContext): Promise<Cleanup | undefined> {
  // OpenCode gives every plugin instance its location; without one there is no project to read rules from.
  if (typeof ctx?.location?.directory !== "string") return undefined;
  let ledger: RulesLedger | undefined;
  let panel: PanelService | undefined;
  const { log, rulebook } = await startForHost({
    rawOptions: ctx.options,
    labels: OPENCODE_2_LABELS,
    sink: fileLogSink(rulebookLogFile(process.env, homedir())),
    port: (log) => {
      panel = panelService(log);
      ledger = rulesLedger(ctx.storage, log, panel.changed);
      return ledgerPort(ledger);
    },
    directory: ctx.location.directory,
    worktree: ctx.location.project?.directory ?? ctx.location.directory,
    // Recording an entry races nothing: a new session's rules are in its first request, whenever it comes.
    creationGraceMs: 0,
  });
  if (!rulebook || !ledger || !panel) return undefined;
  const cleanup = await guard(log, "setup", undefined, undefined, () => registerHooks(ctx, { rulebook, ledger: ledger as RulesLedger, panel: panel as PanelService, log }));
  // Nothing registered: nothing may keep watching the rule folders.
  if (!cleanup) rulebook.dispose();
  return cleanup;
}

/** What the hooks work with: the engine, the session's rules entries, the Rules panel's channel, the log. */
export interface AdapterParts {
  rulebook: RunningRulebook;
  ledger: RulesLedger;
  panel: PanelService;
  log: Logger;
}

/**
 * OpenCode 2's hooks over a running engine. No callback OpenCode calls may
 * throw: a throwing hook fails the request, a throwing tool `execute` crashes
 * the model step. Each catches its own errors, logged with their context.
 */
export async function registerHooks(ctx: PluginContext, { rulebook, ledger, panel, log }: AdapterParts): Promise<Cleanup> {
  const met = new Map<string, Promise<void>>();
  /**
   * A session's first request introduces it to the engine (a new session, or
   * one from before a restart), as the agent and model the request names: the
   * user may have switched since the session was stored. The session's stored
   * ones stand in only where the request names none.
   */
  const meet = (sessionID: string, seen: { agent?: string; model?: ModelRef }) => {
    let meeting = met.get(sessionID);
    if (!meeting) {
      // A meeting that failed is tried again by the session's next request.
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
    await rulebook.sessionSeen({
      id: sessionID,
      parentID: info?.parentID,
      agent: seen.agent ?? info?.agent,
      model: seen.model ?? modelRef(info?.model),
      hasHistory: restored === true,
    });
  };

  /** Prompts whose rules wait for the first request that carries them: OpenCode 2 names the agent and model only there. */
  const arriving = promptsInArrival();

  const onPrompt = (event: SessionPrompt) =>
    guard(log, "prompt", sessionOf(event), undefined, () => {
      arriving.add(event.sessionID, {
        messageID: event.messageID,
        texts: typeof event.prompt?.text === "string" ? [event.prompt.text] : [],
        files: (Array.isArray(event.prompt?.files) ? event.prompt.files : []).flatMap(attachedFile),
      });
    });

  const onContext = (event: SessionContext) =>
    guard(log, "context", sessionOf(event), undefined, async () => {
      const { sessionID } = event;
      const seen = { agent: event.agent, model: modelRef(event.model) };
      await meet(sessionID, seen);
      if (placeRules(event.messages, ledger.entries(sessionID)).moved || ledger.entries(sessionID).length > MAX_ENTRIES) {
        // A compaction checkpoint (or a revert) left the rules' places out of the request: the window starts again, empty.
        ledger.startWindow(sessionID);
        await rulebook.windowRestarted(sessionID, seen);
      }
      // A user's message reaches the model here first, as the agent and model this request names (the user may have switched since the last).
      for (const prompt of arriving.takeArrived(sessionID, event.messages)) {
        const answer = await rulebook.userTurn({ sessionID, texts: prompt.texts, files: prompt.files, ...seen, created: Date.now() });
        // Before the user's words, in every request from this one on.
        if (answer.rules) ledger.add(sessionID, { text: answer.rules.text, marker: answer.rules.marker, awaits: prompt.messageID });
      }
      const placement = placeRules(event.messages, ledger.entries(sessionID));
      if (placement.moved) return;
      ledger.update(sessionID, placement.entries);
      event.messages = placement.messages;
    });

  // A refusal is thrown past the guard on purpose: OpenCode refuses the call before it runs and the model reads the text; the panel reads its rules from the ledger.
  const onToolCalled = async (event: ToolCalled) => {
    const verdict = await guard(log, "execute.before", sessionOf(event), undefined, () =>
      rulebook.toolAboutToRun(event.sessionID, proposedCall(event.tool, event.id, event.input)),
    );
    if (!verdict?.refusal) return;
    ledger.given(event.sessionID, verdict.refusal.marker);
    throw new Error(verdict.refusal.text);
  };

  const onToolFinished = (event: ToolFinished) =>
    guard(log, "execute.after", sessionOf(event), undefined, async () => {
      // The rule tool's own answer carries its rule already.
      if (event.status !== "completed" || event.tool === RULE_TOOL_NAME) return;
      const rules = await rulebook.toolResult(event.sessionID, {
        ...touchedBy(event.tool, event.input, resultText(event.result?.content, event.result?.output)),
        callID: event.id,
      });
      // Placed after this step's tool results, in the request that reads them.
      if (rules !== undefined) ledger.add(event.sessionID, rules);
    });

  const readRule = (input: unknown, context: { readonly sessionID: string }): Promise<ToolResult> =>
    guard(log, "rule tool", sessionOf(context), { content: RULE_TOOL_FAILED }, async () => {
      const answer = await rulebook.ruleRequested(context.sessionID, requestedRuleName(input));
      if (typeof answer?.output !== "string") throw new Error("the engine gave no answer");
      if (answer.marker) ledger.given(context.sessionID, answer.marker);
      return { content: answer.output };
    });

  // Synchronous, cheap and replayable, as OpenCode wants a transform; a failure leaves the tool out, logged.
  const addRuleTool = (editor: Parameters<Parameters<PluginContext["tool"]["transform"]>[0]>[0]) => {
    try {
      editor.add({
        name: RULE_TOOL_NAME,
        description: RULE_TOOL_DESCRIPTION,
        input: RULE_TOOL_INPUT,
        // Offered to the model itself, not only through OpenCode's code tool.
        options: { codemode: false },
        execute: readRule,
      });
    } catch (error) {
      log.error(`Could not offer the rule tool: ${errorText(error)}`);
    }
  };

  const registrations = await registerAll(log, [
    ["prompt hook", () => ctx.session.hook("prompt", onPrompt)],
    ["context hook", () => ctx.session.hook("context", onContext)],
    ["execute.before hook", () => ctx.tool.hook("execute.before", onToolCalled)],
    ["execute.after hook", () => ctx.tool.hook("execute.after", onToolFinished)],
    ["rule tool", () => ctx.tool.transform(addRuleTool)],
  ]);
  await panel.serve(ctx.rpc, (sessionID) => ledger.panelMarkers(sessionID));

  // What this adapter keeps of a session goes when the engine forgets it (deleted, or the plugin disposed).
  const forget = (sessionID: string | undefined) => {
    if (sessionID === undefined) return met.clear();
    ledger.forget(sessionID);
    arriving.forget(sessionID);
    panel.forget(sessionID);
    met.delete(sessionID);
  };
  const stopHolding = await guard(
    log,
    "session follower",
    undefined,
    () => undefined,
    () => rulebook.onForget(forget),
  );
  const stop = new AbortController();
  void followSessions(ctx, stop.signal, async (sessionID) => rulebook.sessionGone(sessionID), log);

  return () =>
    guard(log, "cleanup", undefined, undefined, async () => {
      stop.abort();
      await Promise.all(registrations.map((registration) => registration.dispose().catch(() => undefined)));
      await panel.dispose();
      // Awaited, though the engine's is synchronous: whatever it gives back is caught here.
      await rulebook.dispose();
      stopHolding();
      await ledger.settled();
      ledger.close();
      arriving.forget();
      await log.flush();
    });
}
