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
import { guard, withTimeout } from "../../engine/timing.js";
import { fileLogSink, rulebookLogFile } from "../../log-file.js";
import type { Logger } from "../../log.js";
import { hookGuards } from "../opencode/guarded-hooks.js";
import { RULE_TOOL_FAILED } from "../opencode/rule-tool.js";
import { startForHost } from "../start.js";
import type { Cleanup, PluginContext, ToolEditor } from "./api.js";
import { followSessions, registerAll, undo } from "./host-calls.js";
import { panelService, type PanelService } from "./panel-rpc.js";
import { sessionHooks } from "./session-hooks.js";
import { ledgerPort, rulesLedger, type RulesLedger } from "./session-port.js";
import { toolHooks } from "./tool-hooks.js";

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
 * the model step. Each is guarded where it is registered (`guarded-hooks.ts`),
 * and every call to OpenCode here ends by its deadline (`host-calls.ts`).
 */
export async function registerHooks(ctx: PluginContext, { rulebook, ledger, panel, log }: AdapterParts): Promise<Cleanup> {
  const guarded = hookGuards(log);
  const session = sessionHooks(ctx, { rulebook, ledger, log });
  const tool = toolHooks({ rulebook, ledger });
  const execute = guarded.async("rule tool", { content: RULE_TOOL_FAILED }, tool.readRule);
  // Synchronous, cheap and replayable, as OpenCode wants a transform; a failure leaves the tool out, logged.
  const addRuleTool = guarded.sync("rule tool offer", undefined, (editor: ToolEditor) => editor.add(tool.ruleTool(execute)));

  const registrations = await registerAll(log, [
    ["prompt hook", () => ctx.session.hook("prompt", guarded.async("prompt", undefined, session.prompt))],
    ["context hook", () => ctx.session.hook("context", guarded.async("context", undefined, session.context))],
    ["execute.before hook", () => ctx.tool.hook("execute.before", guarded.async("execute.before", undefined, tool.before))],
    ["execute.after hook", () => ctx.tool.hook("execute.after", guarded.async("execute.after", undefined, tool.after))],
    ["rule tool", () => ctx.tool.transform(addRuleTool)],
  ]);
  await panel.serve(ctx.rpc, (sessionID) => ledger.panelMarkers(sessionID));

  // What this adapter keeps of a session goes when the engine forgets it (deleted, or the plugin disposed).
  const forget = (sessionID: string | undefined) => {
    session.forget(sessionID);
    if (sessionID === undefined) return;
    ledger.forget(sessionID);
    panel.forget(sessionID);
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

  // Each wait here ends by its deadline: a host that never answers does not hold OpenCode's shutdown.
  return guarded.async("cleanup", undefined, async () => {
    stop.abort();
    await Promise.all(registrations.map(undo));
    await panel.dispose();
    // Awaited, though the engine's is synchronous: whatever it gives back is caught here.
    await rulebook.dispose();
    stopHolding();
    await withTimeout(ledger.settled(), SETTLE_MS);
    ledger.close();
    session.forget();
    await log.flush();
  });
}

/** How long the cleanup waits for the writes to the plugin's storage still under way (each ends by its own deadline too). */
const SETTLE_MS = 5000;
