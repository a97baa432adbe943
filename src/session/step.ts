/**
 * How a session moves: `step(state, event)` gives the next state and the
 * effects the engine carries out (`events.ts` names both). Pure. The window
 * model's own transitions are `advanceWindow` (`window.ts`); this adds the
 * session's other facts and decides what each moment asks for: the window's
 * moments here, the silent delivery's in `step-silent.ts`, a user's turn's in
 * `step-turn.ts`, a tool call's in `step-call.ts`.
 */
import type { SessionFacts } from "../conditions/list.js";
import { reloaded, withActivated } from "./activation.js";
import { callsNoted } from "./call-count.js";
import { turnEnded } from "./corrections.js";
import type { Step } from "./effects.js";
import type { SessionEvent } from "./events.js";
import type { RuleSet, SessionState } from "./session.js";
import {
  callProposed,
  checked,
  contentsScanned,
  fileTouched,
  filesRead,
  ruleFilesFound,
  toolFinished,
} from "./step-call.js";
import { asking, moved, noted, only, served } from "./step-parts.js";
import { deliveryAsked, deliveryBroke, rulesNotSent, rulesSent, silentDue, silentSend } from "./step-silent.js";
import { pathsFound, turnMayGoOn, turnSawWindow, userTurn } from "./step-turn.js";
import { compactionAlreadyApplied, isSuperseded } from "./window-queries.js";

export function step(state: SessionState, event: SessionEvent): Step {
  switch (event.type) {
    case "seen": {
      if (event.rules.list.length === 0) return only(state);
      const next = moved(state, { type: "created", ignored: event.ignored, hasHistory: event.hasHistory });
      if (next.window.stage === "ignored") return only(next);
      const chosen = { ...next, agent: next.agent ?? event.agent, model: next.model ?? event.model };
      // A session with a history is read back at its first message; nothing is delivered before.
      return event.hasHistory
        ? only(chosen)
        : asking(chosen, { type: "deliver-silently", trigger: "new-session", grace: true });
    }
    case "compaction-began":
      // Known now, while the host's word that it finished may come only after the user's next message went to the
      // model.
      return only(state.window.stage === "ignored" ? state : moved(state, { type: "compaction-started" }));
    case "window-restarted": {
      if (!served(state, event.rules)) return only(state);
      const chosen = { ...state, agent: event.agent, model: event.model };
      const { windowStart, now: at } = event;
      return asking(moved(chosen, { type: "compacted", windowStart, announced: false, at }), {
        type: "deliver-silently",
        trigger: "compaction",
        thenWentOn: true,
      });
    }
    case "went-on":
      return only(moved(state, { type: "overtaken" }));
    case "compaction-ended":
      return compactionEnded(state, event.rules);
    case "delivery-asked":
      return deliveryAsked(state, event);
    case "silent-due":
      return silentDue(state, event);
    case "rules-sent":
      return rulesSent(state, event);
    case "rules-not-sent":
      return rulesNotSent(state, event);
    case "delivery-broke":
      return deliveryBroke(state, event);
    case "user-turn":
      return userTurn(state, event);
    case "turn-may-go-on":
      return turnMayGoOn(state, event.turn, event.rules);
    case "paths-found":
      return pathsFound(state, event);
    case "window-seen":
      return windowSeen(state, event);
    case "file-touched":
      return fileTouched(state, event);
    case "call-proposed":
      return callProposed(state, event);
    case "rule-files-found":
      return ruleFilesFound(state, event);
    case "files-read":
      return filesRead(state, event);
    case "call-checked":
      return checked(state, event);
    case "tool-finished":
      return toolFinished(state, event);
    case "contents-scanned":
      return contentsScanned(state, event);
    case "facts-observed":
      return only(sameFacts(state.observed, event.facts) ? state : { ...state, observed: event.facts });
    case "session-ended": {
      const ended = turnEnded(state);
      const counted = callsNoted(ended.state);
      return { state: counted.state, effects: noted([...ended.notes, ...counted.notes]) };
    }
    case "rule-requested": {
      const read = moved(state, { type: "rule-read", rule: event.rule });
      return asking(
        {
          ...read,
          activation: withActivated(read.activation, [{ name: event.rule.name, reason: { kind: "rule-tool" } }]),
        },
        { type: "note", note: { kind: "rule-requested", rule: event.rule.name } },
      );
    }
    case "own-rules-stored":
      // The rules already went another way (or it would land after what the model read): this late copy stays out of
      // the model's sight.
      if (isSuperseded(state.window, event.delivery)) return asking(state, { type: "answer", hide: true });
      // The host is storing it now: what it carries is in the window from this moment, whether or not its answer
      // reaches the plugin in time.
      return asking(
        moved(state, {
          type: "prompt-seen",
          delivery: event.delivery,
          created: event.created,
          current: event.rules.byName,
        }),
        { type: "answer", hide: false },
      );
    case "rules-reloaded":
      return only(
        moved(
          { ...state, activation: reloaded(state.activation, event.removed) },
          { type: "reloaded", current: event.rules.byName },
        ),
      );
    default:
      return only(moved(state, event));
  }
}

/** The host's word that a compaction finished: the history says whether its window started already. */
function compactionEnded(state: SessionState, rules: RuleSet): Step {
  if (!served(state, rules)) return only(state);
  return asking(state, {
    type: "read-window",
    scope: "since-compaction",
    purpose: { kind: "compaction-ended", compactions: state.window.compactions },
  });
}

function windowSeen(state: SessionState, seen: Extract<SessionEvent, { type: "window-seen" }>): Step {
  const { purpose, view } = seen;
  switch (purpose.kind) {
    case "silent":
      return silentSend(state, purpose.trigger, purpose.pending, seen);
    case "compaction-ended":
      // A window restarted while the history was read: what it showed is older than the window; read again (nothing
      // delivered twice).
      if (purpose.compactions !== state.window.compactions) return compactionEnded(state, seen.rules);
      // Its window started already: when the host let the model go on, or at a user's message that came before this
      // word.
      if (compactionAlreadyApplied(state.window, view?.windowStart))
        return only(moved(state, { type: "compaction-announced" }));
      return asking(
        moved(state, { type: "compacted", windowStart: view?.windowStart, announced: true, at: seen.now }),
        {
          type: "deliver-silently",
          trigger: "compaction",
        },
      );
    case "join-compaction":
    case "turn":
      return turnSawWindow(state, purpose, seen);
  }
}

/** Facts are plain values (names, `{providerID, modelID}`), read in the list's order: equal text, equal facts. */
export const sameFacts = (before: SessionFacts | undefined, after: SessionFacts): boolean =>
  JSON.stringify(before ?? {}) === JSON.stringify(after);
