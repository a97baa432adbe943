/**
 * Carries out a session's steps: feeds an event to the model (`step`),
 * records the next state, performs each effect through the host's port, the
 * disk or the clock within its bound, and feeds what came of it back, until
 * the model asks for nothing more. Two conversations of one session
 * interleave at their awaits, each step reading the session as it is then.
 * The silent delivery is a conversation of its own (`start-delivery`), which
 * others wait for (`await-delivery`): its tries, failures and backoffs are
 * the model's events and effects, not a loop here.
 */
import { randomUUID } from "node:crypto";
import type { RuleFs } from "../discover/fs.js";
import type { Logger } from "../log.js";
import type { Effect } from "../session/effects.js";
import type { SessionEvent } from "../session/events.js";
import type { SilentTrigger } from "../session/marker.js";
import type { RuleSet } from "../session/session.js";
import type { RetryPolicy } from "../session/silent-delivery.js";
import { step } from "../session/step.js";
import type { SessionStore } from "../session/store.js";
import type { callChecking } from "./check-call.js";
import { scanContents } from "./content-scan.js";
import type { SessionPort } from "./contract.js";
import type { NoteWriter } from "./notes.js";
import { type BoundedCall, errorText, outcomeUnknown, sleep, withTimeout } from "./timing.js";

/** The answer a host call gets, if the session's steps gave one. */
type Answer = Extract<Effect, { type: "answer" }>;

/** Every bound the runner keeps, in milliseconds. */
interface RunnerBounds {
  historyTimeoutMs: number;
  pathCheckMs: number;
  compactionWaitMs: number;
  promptTimeoutMs: number;
  firstMessageWaitMs: number;
  creationGraceMs: number;
}

interface RunnerParts {
  port: SessionPort;
  sessions: SessionStore;
  rules(): RuleSet;
  log: Logger;
  note: NoteWriter;
  fs: Pick<RuleFs, "stat">;
  within: BoundedCall;
  stopped: AbortSignal;
  bounds: RunnerBounds;
  retry: RetryPolicy;
  checking: ReturnType<typeof callChecking>;
  /** Waits `ms`, or less when the plugin stops (`timing.ts` sleep; tests replace it). */
  sleep?: (ms: number, stopped: AbortSignal) => Promise<void>;
}

export type Runner = ReturnType<typeof sessionRunner>;

export function sessionRunner(parts: RunnerParts) {
  const { port, sessions, bounds } = parts;
  const wait = parts.sleep ?? sleep;
  /** Each session's silent delivery under way, as the conversation that carries it. */
  const deliveries = new Map<string, Promise<void>>();

  /** Moves the session by `event` and whatever its effects bring back; the host's answer, if one was given. */
  async function drive(sessionID: string, first: SessionEvent): Promise<Answer | undefined> {
    let event: SessionEvent | undefined = first;
    let answer: Answer | undefined;
    while (event) {
      const state = sessions.peek(sessionID);
      // Deleted (or the plugin disposed): nothing more to do for it; a delivery's retries stop here too.
      if (!state) return answer;
      const next = step(state, event);
      sessions.set(sessionID, next.state);
      event = undefined;
      for (const effect of next.effects) {
        if (effect.type === "answer") answer = effect;
        else if (effect.type === "note") parts.note(sessionID, effect.note, next.state);
        else event = (await apply(sessionID, effect)) ?? event;
      }
    }
    return answer;
  }

  const silentDue = (trigger: SilentTrigger): SessionEvent => ({
    type: "silent-due",
    trigger,
    rules: parts.rules(),
    freshId: randomUUID(),
  });

  async function apply(
    sessionID: string,
    effect: Exclude<Effect, Answer | { type: "note" }>,
  ): Promise<SessionEvent | undefined> {
    switch (effect.type) {
      case "read-window": {
        const read = await parts
          .within(`The host's answer to a history read of session ${sessionID}`, bounds.historyTimeoutMs, (signal) =>
            port.readWindow(sessionID, effect.scope, signal),
          )
          .then((view) => ({ view, error: undefined }))
          .catch((error: unknown) => ({ view: undefined, error: errorText(error) }));
        const { purpose } = effect;
        return { type: "window-seen", purpose, ...read, rules: parts.rules(), now: Date.now(), freshId: randomUUID() };
      }
      case "check-paths": {
        const named = effect.turn.named;
        // A slow disk (a hung network mount) must not hold the message: paths not checked in time are left out.
        const exists = await withTimeout(
          Promise.all(named.map(({ absolute }) => parts.fs.stat(absolute).then(yes, no))),
          bounds.pathCheckMs,
        );
        const existing = named.filter((_, i) => exists?.[i]).map(({ path }) => path);
        return { type: "paths-found", turn: effect.turn, existing, rules: parts.rules() };
      }
      case "deliver-silently":
        // A host may prompt a new session at once, and set its agent and model from that first prompt: a silent
        // prompt racing it could leave the session on the default agent. A first message arriving within the grace
        // period carries the rules itself.
        if (effect.grace) await wait(bounds.creationGraceMs, parts.stopped);
        return { type: "delivery-asked", trigger: effect.trigger, thenWentOn: effect.thenWentOn, retry: parts.retry };
      case "start-delivery":
        return void startDelivery(sessionID, effect.trigger);
      case "try-delivery":
        if (effect.afterMs > 0) await wait(effect.afterMs, parts.stopped);
        return silentDue(effect.trigger);
      case "await-delivery":
        return awaitDelivery(sessionID, effect.waiter);
      case "send-rules":
        return sendRules(sessionID, effect);
      case "find-rule-files":
        return parts.checking.findRuleFiles(effect);
      case "read-files":
        return parts.checking.readFiles(effect);
      case "match-call":
        return parts.checking.matchCall(effect);
      case "scan-contents":
        return scanContents(parts.rules(), effect);
    }
  }

  /**
   * The delivery's own conversation: what breaks it off is the model's to answer (`delivery-broke`), and the log's
   * after that.
   */
  function startDelivery(sessionID: string, trigger: SilentTrigger): void {
    const run: Promise<void> = drive(sessionID, silentDue(trigger))
      .catch((error: unknown) => drive(sessionID, { type: "delivery-broke", error: errorText(error) }))
      .then(
        () => undefined,
        (error: unknown) =>
          parts.log.error(`Rules delivery to session ${sessionID} broke off: ${errorText(error)}`, { sessionID }),
      )
      .finally(() => {
        if (deliveries.get(sessionID) === run) deliveries.delete(sessionID);
      });
    deliveries.set(sessionID, run);
  }

  /** Waits for the delivery under way: a turn and the host going on only so long, then they go on. */
  async function awaitDelivery(
    sessionID: string,
    waiter: Extract<Effect, { type: "await-delivery" }>["waiter"],
  ): Promise<SessionEvent | undefined> {
    const running = deliveries.get(sessionID);
    if (waiter.kind === "asker") return void (await running);
    if (running)
      await withTimeout(running, waiter.kind === "turn" ? bounds.firstMessageWaitMs : bounds.compactionWaitMs);
    // The host writes what the model reads next as its call returns: rules not stored by then would land after it.
    return waiter.kind === "turn"
      ? { type: "turn-may-go-on", turn: waiter.turn, rules: parts.rules() }
      : { type: "went-on" };
  }

  async function sendRules(sessionID: string, effect: Extract<Effect, { type: "send-rules" }>): Promise<SessionEvent> {
    const { delivery, composed, compactions, trigger } = effect;
    const prompt = { sessionID, text: composed.text, marker: effect.marker, agent: effect.agent, model: effect.model };
    try {
      // Given up at its deadline even if the host goes on: the outcome is unknown, and the next try reads the window
      // before it sends again.
      const { created } = await parts.within(
        `The host's answer to the rules prompt for session ${sessionID}`,
        bounds.promptTimeoutMs,
        (signal) => port.sendRules(prompt, signal),
      );
      return { type: "rules-sent", delivery, created, composed, compactions, trigger, rules: parts.rules() };
    } catch (error) {
      // Only a timeout leaves the outcome unknown; any other failure was an answer.
      return { type: "rules-not-sent", delivery, trigger, error: errorText(error), refused: !outcomeUnknown(error) };
    }
  }

  return { drive };
}

const yes = () => true;
const no = () => false;
