/**
 * Silent delivery: the rules prompt a new session gets after its grace
 * period, and the one a compaction's new window gets. One delivery under way
 * per session (`deliver/sessions.ts`), tried a bounded number of times; every
 * attempt reported to the session's delivery model, so a prompt that timed out
 * but was stored after all is found in the history and never sent twice.
 */
import { randomUUID } from "node:crypto";
import { markerFor } from "../deliver/marker.js";
import { createSessionTracker, type DeliveryResult, type DeliveryTrigger } from "../deliver/sessions.js";
import { holdsRules, pendingDeliveries } from "../session/delivery.js";
import { composeFor } from "./activation.js";
import type { Rulebook } from "./host.js";
import type { Engine } from "./rulebook.js";
import { errorText, guard, outcomeUnknown, sleep, withTimeout } from "./timing.js";

/** A rules prompt is stored in milliseconds; one that hangs this long is given up (and looked for in the history before any retry). */
export const PROMPT_TIMEOUT_MS = 10_000;

/** Long enough for a prompt sent right after creating a session; short enough to go unnoticed otherwise. */
export const CREATION_GRACE_MS = 300;

/** Compaction re-deliveries remembered per session for the `session.compacted` event to join: a compaction whose event never comes leaves at most this many. */
const COMPACTION_RUNS_KEPT = 8;

export type SilentDelivery = ReturnType<typeof silentDelivery>;

export function silentDelivery(engine: Engine) {
  const { deps, sessions, log } = engine;

  async function send(sessionID: string, trigger: DeliveryTrigger): Promise<void> {
    const state = sessions.peek(sessionID);
    if (!state) return;
    const compacted = trigger === "session.compacted";
    const pending = pendingDeliveries(state.delivery);
    const needsHistory = compacted || (!state.agent && state.delivery.stage === "unread") || pending.size > 0;
    const view = needsHistory ? await engine.readWindow(sessionID, compacted ? "since-compaction" : "current").catch(() => undefined) : undefined;
    // An earlier attempt that timed out may have been stored after all: never send the rules twice, and never blind.
    if (pending.size > 0 && !view) throw new Error("an earlier rules prompt may have been stored, and the history that would tell cannot be read; trying again later");
    // A prompt without the session's agent would switch it to the default agent.
    if (view && !state.agent) Object.assign(state, view.choice);
    const current = engine.rules().byName;
    // The new window may already hold rules: a delivery that was on its way when the compaction came.
    if (compacted && view) engine.update(state, { type: "window-read", found: view.rules.map(({ marker }) => marker), settles: false, current });
    const window = state.delivery.window;
    const composed = composeFor(engine, sessionID, state);
    if (!composed) return engine.update(state, { type: "nothing-to-send" });
    // After compaction OpenCode may already be working again (a replayed prompt): the rules must not be its newest message.
    engine.update(state, { type: "summary-dated", at: compacted ? view?.summaryTime : undefined });
    const earlier = view?.rules.find(({ marker }) => marker.delivery !== undefined && pending.has(marker.delivery));
    let created: number;
    let delivery: string;
    if (earlier?.marker.delivery !== undefined) {
      created = earlier.created ?? Date.now();
      delivery = earlier.marker.delivery;
    } else {
      delivery = randomUUID();
      engine.update(state, { type: "prompt-sent", delivery, composed });
      try {
        const prompt = { sessionID, text: composed.text, marker: markerFor(composed, trigger, delivery), agent: state.agent, model: state.model };
        created = (await engine.within(deps.promptTimeoutMs ?? PROMPT_TIMEOUT_MS, (signal) => deps.port.sendRules(prompt, signal))).created;
      } catch (error) {
        // Only a timeout leaves the outcome unknown; any other failure was an answer.
        if (!outcomeUnknown(error)) engine.update(state, { type: "prompt-refused", delivery });
        throw error;
      }
    }
    // What the stored attempt carried, not what would be composed now (a rule may have changed since).
    const sent = state.delivery.attempts.get(delivery)?.composed ?? composed;
    engine.update(state, { type: "prompt-stored", delivery, created, composed, window, current: engine.rules().byName });
    if (holdsRules(state.delivery) && state.delivery.rulesCreated === created) {
      log.debug(`Delivered ${sent.included.length} rules to session ${sessionID} on ${trigger}`, { sessionID, rules: sent.included.map(({ rule }) => rule.name) });
    }
  }

  const tracker = createSessionTracker({
    retry: deps.retry,
    // A deleted session is not prompted; after `dispose` nothing is.
    alive: (sessionID) => !engine.stopped.aborted && sessions.peek(sessionID) !== undefined,
    holdsRules: (sessionID) => {
      const state = sessions.peek(sessionID);
      return state !== undefined && holdsRules(state.delivery);
    },
    send,
    onFailure(sessionID, trigger, error, attempt, final) {
      log.error(
        `Rules delivery to session ${sessionID} on ${trigger} failed (try ${attempt})${final ? "; left for the session's next event" : "; retrying"}: ${errorText(error)}`,
        {
          sessionID,
          event: trigger,
          attempt,
          error: errorText(error),
        },
      );
    },
  });

  /** Re-deliveries the autocontinue call started, oldest first: each `session.compacted` event joins the one of its compaction. */
  const compactionRuns = new Map<string, Array<Promise<DeliveryResult>>>();

  const calls: Pick<Rulebook, "sessionCreated" | "compactionEnding" | "sessionCompacted" | "sessionDeleted"> = {
    sessionCreated: (session) =>
      guard(log, "session.created", session.id, undefined, async () => {
        await engine.refresh();
        if (engine.rules().list.length === 0) return;
        const state = sessions.get(session.id);
        if (!state) return;
        engine.update(state, { type: "created", ignored: session.parentID !== undefined && !deps.options.subagents, hasHistory: session.hasHistory });
        if (state.delivery.stage === "ignored") return;
        state.agent ??= session.agent;
        state.model ??= session.model;
        if (session.hasHistory) return; // read back from its history at its first message
        // A host may prompt a new session at once, and set its agent and model from that first prompt: a
        // silent prompt racing it could leave the session on the default agent. A first message arriving
        // within the grace period carries the rules itself; otherwise the silent prompt goes.
        await sleep(deps.creationGraceMs ?? CREATION_GRACE_MS, engine.stopped);
        // Deleted during the grace period (or the plugin disposed): nothing to send.
        if (sessions.peek(session.id) !== state) return;
        await tracker.deliver(session.id, "session.created");
      }),

    compactionEnding: (sessionID, choice) =>
      guard(log, "experimental.compaction.autocontinue", sessionID, undefined, async () => {
        const state = sessions.get(sessionID);
        if (!state || engine.rules().list.length === 0 || state.delivery.stage === "ignored") return;
        state.agent = choice.agent;
        state.model = choice.model;
        // The later `session.compacted` event is for this same compaction: it joins this delivery.
        engine.update(state, { type: "compacted" });
        const run = tracker.deliver(sessionID, "session.compacted");
        compactionRuns.set(sessionID, [...(compactionRuns.get(sessionID) ?? []).slice(1 - COMPACTION_RUNS_KEPT), run]);
        await withTimeout(run, engine.limits.compactionWaitMs);
      }),

    sessionCompacted: (sessionID) =>
      guard(log, "session.compacted", sessionID, undefined, async () => {
        await engine.refresh();
        if (engine.rules().list.length === 0) return;
        const state = sessions.get(sessionID);
        if (!state || state.delivery.stage === "ignored") return;
        const run = compactionRuns.get(sessionID)?.shift();
        // A manual compaction (no autocontinue call): its window starts here.
        if (!run) engine.update(state, { type: "compacted" });
        else if ((await run).delivered) return;
        await tracker.deliver(sessionID, "session.compacted");
      }),

    sessionDeleted(sessionID) {
      sessions.delete(sessionID);
      compactionRuns.delete(sessionID);
    },
  };

  return {
    calls,
    /** The delivery under way for this session, if any. */
    inFlight: (sessionID: string) => tracker.inFlight(sessionID),
    close: () => compactionRuns.clear(),
  };
}
