/**
 * Carries out a session's steps: feeds an event to the model (`step`),
 * records the next state, applies each effect through the host's port within
 * its time bound, and feeds what came of it back, until the model asks for
 * nothing more. Two conversations of one session interleave at their awaits,
 * each step reading the session as it is then.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.js";
import type { RuleFs } from "../discover/fs.js";
import { weakenedLine } from "../render/weakened.js";
import { reasonText } from "../select/reasons.js";
import type { Effect, Note, RuleSet, SessionEvent } from "../session/session.js";
import { step } from "../session/step.js";
import type { SessionStore } from "../session/store.js";
import type { SilentTrigger } from "../session/marker.js";
import type { HostLabels, SessionPort } from "./contract.js";
import type { SilentDeliveries } from "./silent-retry.js";
import { type BoundedCall, errorText, outcomeUnknown, sleep, withTimeout } from "./timing.js";

/** The answer a host call gets, if the session's steps gave one. */
export type Answer = Extract<Effect, { type: "answer" }>;

/** Every bound the runner keeps, in milliseconds. */
export interface RunnerBounds {
  historyTimeoutMs: number;
  pathCheckMs: number;
  compactionWaitMs: number;
  promptTimeoutMs: number;
  firstMessageWaitMs: number;
  creationGraceMs: number;
}

export interface RunnerParts {
  port: SessionPort;
  labels: HostLabels;
  sessions: SessionStore;
  rules(): RuleSet;
  log: Logger;
  fs: Pick<RuleFs, "stat">;
  within: BoundedCall;
  stopped: AbortSignal;
  bounds: RunnerBounds;
  silent(): SilentDeliveries;
}

export type Runner = ReturnType<typeof sessionRunner>;

export function sessionRunner(parts: RunnerParts) {
  const { port, sessions, log, bounds } = parts;

  /** Moves the session by `event` and whatever its effects bring back; the host's answer, if one was given. */
  async function drive(sessionID: string, first: SessionEvent): Promise<Answer | undefined> {
    let event: SessionEvent | undefined = first;
    let answer: Answer | undefined;
    while (event) {
      const state = sessions.peek(sessionID);
      // Deleted (or the plugin disposed): nothing more to do for it.
      if (!state) return answer;
      const next = step(state, event);
      sessions.set(sessionID, next.state);
      event = undefined;
      for (const effect of next.effects) {
        if (effect.type === "answer") answer = effect;
        else event = (await apply(sessionID, effect)) ?? event;
      }
    }
    return answer;
  }

  async function apply(sessionID: string, effect: Exclude<Effect, Answer>): Promise<SessionEvent | undefined> {
    switch (effect.type) {
      case "note":
        return void write(sessionID, effect.note);
      case "read-window": {
        const read = await parts
          .within(`The host's answer to a history read of session ${sessionID}`, bounds.historyTimeoutMs, (signal) =>
            port.readWindow(sessionID, effect.scope, signal),
          )
          .then((view) => ({ view, error: undefined }))
          .catch((error: unknown) => ({ view: undefined, error: errorText(error) }));
        return {
          type: "window-seen",
          purpose: effect.purpose,
          ...read,
          rules: parts.rules(),
          now: Date.now(),
          freshId: randomUUID(),
        };
      }
      case "await-delivery": {
        const running = parts.silent().inFlight(sessionID);
        if (running) await withTimeout(running, bounds.firstMessageWaitMs);
        return { type: "turn-may-go-on", turn: effect.turn, rules: parts.rules() };
      }
      case "check-paths": {
        const named = effect.turn.named;
        // A slow disk (a hung network mount) must not hold the message: paths not checked in time are left out.
        const exists = await withTimeout(
          Promise.all(named.map(({ absolute }) => parts.fs.stat(absolute).then(yes, no))),
          bounds.pathCheckMs,
        );
        return {
          type: "paths-found",
          turn: effect.turn,
          existing: named.filter((_, i) => exists?.[i]).map(({ path }) => path),
          rules: parts.rules(),
        };
      }
      case "deliver-silently":
        return deliverSilently(sessionID, effect.trigger, effect);
      case "send-rules": {
        const { delivery, composed, window, trigger } = effect;
        const prompt = {
          sessionID,
          text: composed.text,
          marker: effect.marker,
          agent: effect.agent,
          model: effect.model,
        };
        try {
          // Given up at its deadline even if the host goes on: the outcome is unknown, and the next try reads the window before it sends again.
          const { created } = await parts.within(
            `The host's answer to the rules prompt for session ${sessionID}`,
            bounds.promptTimeoutMs,
            (signal) => port.sendRules(prompt, signal),
          );
          return { type: "rules-sent", delivery, created, composed, window, trigger, rules: parts.rules() };
        } catch (error) {
          // Only a timeout leaves the outcome unknown; any other failure was an answer.
          if (!outcomeUnknown(error)) await drive(sessionID, { type: "rules-refused", delivery });
          throw error;
        }
      }
      case "fail":
        throw new Error(
          "an earlier rules prompt may have been stored, and the history that would tell cannot be read; trying again later",
        );
    }
  }

  async function deliverSilently(
    sessionID: string,
    trigger: SilentTrigger,
    how: { grace?: boolean; thenWentOn?: boolean },
  ): Promise<SessionEvent | undefined> {
    if (how.grace) {
      // A host may prompt a new session at once, and set its agent and model from that first prompt: a silent prompt racing it could
      // leave the session on the default agent. A first message arriving within the grace period carries the rules itself.
      // Deleted during it (or the plugin disposed): the delivery finds the session gone and sends nothing.
      await sleep(bounds.creationGraceMs, parts.stopped);
    }
    const delivering = parts.silent().deliver(sessionID, trigger);
    if (!how.thenWentOn) return void (await delivering);
    // The host writes what the model reads next as this call returns: rules not stored by then would land after it.
    await withTimeout(delivering, bounds.compactionWaitMs);
    return { type: "went-on" };
  }

  function write(sessionID: string, note: Note): void {
    if (note.kind === "activated") {
      const text = reasonText(note.reason);
      log.debug(`Activated rule ${note.rule} for session ${sessionID}: ${text}`, {
        sessionID,
        rule: note.rule,
        reason: text,
      });
    } else if (note.kind === "delivered") {
      const where =
        note.how === "message"
          ? "inside its user message"
          : note.how === "tool-result"
            ? `with the result of ${note.tool}`
            : `on ${parts.labels[note.how] ?? note.how}`;
      log.debug(`Delivered ${note.rules.length} rules to session ${sessionID} ${where}`, {
        sessionID,
        rules: note.rules,
      });
    } else if (note.kind === "enforced") {
      const verb = note.mode === "block" ? "Refused" : "Let run, with a warning,";
      const what = note.broken.map(
        ({ rule, pattern, file, lineNumber }) =>
          `${rule} (${pattern}${file === undefined ? "" : ` in ${file}${lineNumber === undefined ? "" : ` line ${lineNumber}`}`})`,
      );
      log.info(`${verb} a ${note.tool} call in session ${sessionID}: it breaks ${what.join(", ")}`, {
        sessionID,
        tool: note.tool,
        rules: note.broken.map(({ rule }) => rule),
      });
    } else if (note.kind === "weakened") {
      const lines = note.weakened.map(weakenedLine);
      log.warn(
        `A ${note.tool} call in session ${sessionID} weakened rules that forbid (it ran; rule files stay writable):\n${lines.join("\n")}`,
        {
          sessionID,
          tool: note.tool,
          rules: note.weakened.map(({ name }) => name),
        },
      );
    } else if (note.kind === "went-on-before-rules") {
      log.debug(
        `Session ${sessionID} went on after its compaction before the rules could go: they go with its next message`,
        { sessionID },
      );
    } else if (note.silent) {
      log.warn(
        `Sending the rules to session ${sessionID} in a silent message without reading its history (${note.error}): an earlier copy may be there`,
        { sessionID },
      );
    } else {
      log.warn(
        `Could not read the history of session ${sessionID} (${note.error}); delivering the rules with this message, though an earlier copy may be there`,
        { sessionID },
      );
    }
  }

  return { drive };
}

const yes = () => true;
const no = () => false;
