/**
 * Silent delivery: the rules prompt a new session gets after its grace
 * period, and the one a compaction's new window gets. One delivery under way
 * per session (`deliver/sessions.ts`), tried a bounded number of times; every
 * attempt reported to the session's delivery model, so a prompt that timed out
 * but was stored after all is found in the history and never sent twice.
 *
 * A silent prompt only ever goes at the end of what the model has read (the
 * prompt-cache guarantee, README): once the model has read past the point
 * where it would go (OpenCode's continuation after a compaction, a replayed
 * prompt, the user's next message), the rules are owed to the next message
 * the plugin reaches instead (`turns.ts`), and a prompt still on its way is
 * hidden when it lands.
 */
import { randomUUID } from "node:crypto";
import { markerFor } from "../deliver/marker.js";
import { createSessionTracker, type DeliveryTrigger } from "../deliver/sessions.js";
import { compactionAlreadyApplied, holdsRules, pendingDeliveries, rulesOwed } from "../session/delivery.js";
import { composeFor } from "./activation.js";
import type { Rulebook } from "./host.js";
import type { Engine } from "./rulebook.js";
import { errorText, guard, outcomeUnknown, sleep, withTimeout } from "./timing.js";

/** A rules prompt is stored in milliseconds; one that hangs this long is given up (and looked for in the history before any retry). */
export const PROMPT_TIMEOUT_MS = 10_000;

/** Long enough for a prompt sent right after creating a session; short enough to go unnoticed otherwise. */
export const CREATION_GRACE_MS = 300;

export type SilentDelivery = ReturnType<typeof silentDelivery>;

export function silentDelivery(engine: Engine) {
  const { deps, sessions, log } = engine;

  async function send(sessionID: string, trigger: DeliveryTrigger): Promise<void> {
    const state = sessions.peek(sessionID);
    // Owed to the next message: a prompt now would land after what the model read.
    if (!state || rulesOwed(state.delivery)) return;
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
    // OpenCode is already working in the new window (a replayed prompt): the next message the plugin reaches carries the rules.
    if (compacted && view?.movedOn) {
      log.debug(`Session ${sessionID} went on after its compaction before the rules could go: they go with its next message`, { sessionID });
      return engine.update(state, { type: "overtaken" });
    }
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
        const prompt = {
          sessionID,
          text: composed.text,
          marker: markerFor(composed, trigger, { delivery, warnings: engine.rules().warnings }),
          agent: state.agent,
          model: state.model,
        };
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

  const calls: Pick<Rulebook, "sessionCreated" | "compactionStarting" | "compactionEnding" | "sessionCompacted" | "sessionDeleted"> = {
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

    compactionStarting(sessionID) {
      const state = sessions.peek(sessionID);
      // Known now, while the host's event for it may come only after the user's next message went to the model.
      if (state && state.delivery.stage !== "ignored") engine.update(state, { type: "compaction-started" });
    },

    compactionEnding: (sessionID, choice, windowStart) =>
      guard(log, "experimental.compaction.autocontinue", sessionID, undefined, async () => {
        const state = sessions.get(sessionID);
        if (!state || engine.rules().list.length === 0 || state.delivery.stage === "ignored") return;
        state.agent = choice.agent;
        state.model = choice.model;
        engine.update(state, { type: "compacted", windowStart, announced: false });
        await withTimeout(tracker.deliver(sessionID, "session.compacted"), engine.limits.compactionWaitMs);
        // The host writes its continuation as this call returns: rules not stored by now would land after it.
        if (!holdsRules(state.delivery)) engine.update(state, { type: "overtaken" });
      }),

    sessionCompacted: (sessionID) =>
      guard(log, "session.compacted", sessionID, undefined, async () => {
        await engine.refresh();
        if (engine.rules().list.length === 0) return;
        const state = sessions.get(sessionID);
        if (!state || state.delivery.stage === "ignored") return;
        const view = await engine.readWindow(sessionID, "since-compaction").catch(() => undefined);
        // Its window started already: on the autocontinue call, or at a user's message that came before this event.
        if (compactionAlreadyApplied(state.delivery, view?.windowStart)) return engine.update(state, { type: "compaction-announced" });
        engine.update(state, { type: "compacted", windowStart: view?.windowStart, announced: true });
        await tracker.deliver(sessionID, "session.compacted");
      }),

    sessionDeleted(sessionID) {
      sessions.delete(sessionID);
    },
  };

  return {
    calls,
    /** The delivery under way for this session, if any. */
    inFlight: (sessionID: string) => tracker.inFlight(sessionID),
  };
}
