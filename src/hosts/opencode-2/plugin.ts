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
import { nodeRuleFs } from "../../discover/fs.js";
import { gitRootAbove } from "../../discover/project.js";
import type { HostLabels } from "../../engine/contract.js";
import type { RunningRulebook } from "../../engine/rulebook.js";
import { guard, withTimeout } from "../../engine/timing.js";
import { fileLogSink, rulebookLogFile } from "../../log-file.js";
import { createLogger, type Logger } from "../../log.js";
import { hookGuards } from "../opencode/guarded-hooks.js";
import { RULE_TOOL_FAILED } from "../opencode/rule-tool.js";
import { startForHost } from "../start.js";
import type { Cleanup, PluginContext, Registration, ToolEditor } from "./api.js";
import { cannotWorkText, type HostOffer, hostOffer, offerNotes, takesToolAlone } from "./host-offer.js";
import { followSessions, HOST_CALL_MS, registerAll, undo } from "./host-calls.js";
import { panelService, type PanelService } from "./panel-rpc.js";
import { ruleToolInfo } from "./rule-tool-info.js";
import { sessionHooks } from "./session-hooks.js";
import { ledgerPort, rulesLedger, type RulesLedger } from "./session-port.js";
import { toolHooks } from "./tool-hooks.js";

/** The engine's calls under OpenCode 2's names for what brings them, in log lines. */
const OPENCODE_2_LABELS: HostLabels = {
  sessionSeen: "context (first request)",
  windowRestarted: "context (window moved)",
  userTurn: "context (prompt arrived)",
  toolAboutToRun: "execute.before",
  toolResult: "execute.after",
  ruleRequested: "rule tool",
};

/**
 * OpenCode 2 calls `setup` when it loads the plugin. It never throws, and is
 * never silent: on a host that lacks what it needs it says so once (stderr
 * and its log file, `opencode-rulebook.log` beside OpenCode's logs: OpenCode 2
 * gives plugins no log API, and its server's stdout is read for its ready
 * line), and where the host lacks a nicety it does without and says how
 * (`host-offer.ts`).
 */
export async function setupRulebook(ctx: PluginContext): Promise<Cleanup | undefined> {
  const offer = hostOffer(ctx);
  const sink = fileLogSink(rulebookLogFile(process.env, homedir()));
  if (!offer.sessionHooks) {
    const log = createLogger(sink, false);
    log.error(cannotWorkText(offer), { offered: offer.keys });
    await log.flush();
    return undefined;
  }
  // Without a location the host runs the project it was started in (the trunk's `Location` is the server's folder).
  const directory = offer.location?.directory ?? process.cwd();
  const worktree = offer.location
    ? (offer.location.projectDirectory ?? directory)
    : ((await withTimeout(gitRootAbove(nodeRuleFs, directory), HOST_CALL_MS)) ?? directory);
  const tool = { offered: offer.toolTransform };
  let ledger: RulesLedger | undefined;
  let panel: PanelService | undefined;
  const { log, rulebook } = await startForHost({
    rawOptions: ctx.options,
    labels: OPENCODE_2_LABELS,
    sink,
    port: (log) => {
      panel = panelService(log);
      ledger = rulesLedger(offer.storage ? ctx.storage : undefined, log, panel.changed);
      return ledgerPort(ledger);
    },
    directory,
    worktree,
    // Recording an entry races nothing: a new session's rules are in its first request, whenever it comes.
    creationGraceMs: 0,
    ruleTool: () => tool.offered,
  });
  for (const note of offerNotes(offer, { directory, worktree })) log[note.level](note.text);
  if (!rulebook || !ledger || !panel) return undefined;
  const parts = { rulebook, ledger: ledger as RulesLedger, panel: panel as PanelService, log, offer, tool };
  const cleanup = await guard(log, "setup", undefined, undefined, () => registerHooks(ctx, parts));
  // Nothing registered: nothing may keep watching the rule folders.
  if (!cleanup) rulebook.dispose();
  return cleanup;
}

/** What the hooks work with: the engine, the session's rules entries, the Rules panel's channel, the log, what the host offers. */
interface AdapterParts {
  rulebook: RunningRulebook;
  ledger: RulesLedger;
  panel: PanelService;
  log: Logger;
  offer?: HostOffer;
  /** Whether the model has the `rule` tool: the engine gives on-request rules whole when not. */
  tool?: { offered: boolean };
}

/**
 * OpenCode 2's hooks over a running engine. No callback OpenCode calls may
 * throw: a throwing hook fails the request, a throwing tool `execute` crashes
 * the model step. Each is guarded where it is registered (`guarded-hooks.ts`),
 * and every call to OpenCode here ends by its deadline (`host-calls.ts`).
 */
export async function registerHooks(
  ctx: PluginContext,
  { rulebook, ledger, panel, log, offer = hostOffer(ctx), tool = { offered: true } }: AdapterParts,
): Promise<Cleanup> {
  const guarded = hookGuards(log);
  const session = sessionHooks(ctx, { rulebook, ledger, log });
  const tools = toolHooks({ rulebook, ledger });
  const ruleTool = ruleToolInfo(guarded.async("rule tool", RULE_TOOL_FAILED, tools.readRule));
  // Synchronous, cheap and replayable, as OpenCode wants a transform; a failure leaves the tool out, logged, and on-request rules come whole.
  let saidToolLeftOut = false;
  const addRuleTool = guarded.sync("rule tool offer", undefined, (editor: ToolEditor) => {
    tool.offered = false;
    if (typeof editor?.add !== "function") throw new TypeError("the tool editor has no add");
    if (!takesToolAlone(editor)) {
      // Replayed at every rebuild of OpenCode's tools: said once.
      if (!saidToolLeftOut)
        log.warn(
          "This OpenCode's tool editor takes a plugin tool in another way than the plugin was built for (add(tool)): the rule tool is left out, and on-request rules are given whole",
        );
      saidToolLeftOut = true;
      return;
    }
    editor.add(ruleTool);
    tool.offered = true;
  });

  const registrations = await registerAll(log, [
    ["prompt hook", () => ctx.session.hook("prompt", guarded.async("prompt", undefined, session.prompt))],
    ["context hook", () => ctx.session.hook("context", guarded.async("context", undefined, session.context))],
    ...(offer.toolHooks
      ? ([
          [
            "execute.before hook",
            () => ctx.tool.hook("execute.before", guarded.async("execute.before", undefined, tools.before)),
          ],
          [
            "execute.after hook",
            () => ctx.tool.hook("execute.after", guarded.async("execute.after", undefined, tools.after)),
          ],
        ] as Array<[string, () => Promise<Registration>]>)
      : []),
  ]);
  const toolRegistration = offer.toolTransform
    ? await registerAll(log, [["rule tool", () => ctx.tool.transform(addRuleTool)]])
    : [];
  if (toolRegistration.length === 0) tool.offered = false;
  registrations.push(...toolRegistration);
  await panel.serve(offer.rpc ? ctx.rpc : undefined, (sessionID) => ledger.panelMarkers(sessionID));

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
