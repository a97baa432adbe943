/**
 * A session's turns: the user's messages, the plugin's own prompt as it is
 * stored, tool calls and their results, edited files, and the `rule` tool.
 * Rules activated by a turn go into that turn's own message.
 */
import { markerFor, ruleReadMarker } from "../deliver/marker.js";
import { answerRuleRequest, RULE_TOOL_NAME } from "../deliver/rule-tool.js";
import { holdsRules, isSuperseded, mustReadWindow, rulesOwed, userMessageDate } from "../session/delivery.js";
import { addFile, type SessionState } from "../session/state.js";
import { normalisePath } from "../session/working-set.js";
import { composeFor, takeInPrompt, takeInToolCall } from "./activation.js";
import type { Rulebook } from "./host.js";
import type { Engine } from "./rulebook.js";
import type { SilentDelivery } from "./silent-delivery.js";
import { errorText, guard, withTimeout } from "./timing.js";

/** How long a first user message waits for the rules delivery under way. */
export const FIRST_MESSAGE_WAIT_MS = 2500;

type Turns = Pick<Rulebook, "userMessage" | "ownPromptStored" | "toolCalled" | "toolFinished" | "fileEdited" | "readRule">;

export function sessionTurns(engine: Engine, delivery: SilentDelivery): { calls: Turns; close(): void } {
  const { deps, sessions, log } = engine;
  /** The last session seen working: an edited file names no session. */
  let lastActiveSession: string | undefined;
  /** The session's state, unless it is not to be served (deleted, ignored). */
  const open = (sessionID: string) => {
    const state = sessions.get(sessionID);
    return state && state.delivery.stage !== "ignored" ? state : undefined;
  };
  /** …and only while there are rules. */
  const served = (sessionID: string) => (engine.rules().list.length > 0 ? open(sessionID) : undefined);

  /**
   * A user's message while a compaction is under way, or done with its event
   * still to come (it may come after this message went to the model): if the
   * history shows the compaction's window (written, or still summarising, so
   * that this message will follow the summary), this message is the first of
   * that window and carries its rules. A compaction that failed moved nothing.
   */
  async function joinCompactedWindow(sessionID: string, state: SessionState): Promise<void> {
    const view = await engine.readWindow(sessionID, "since-compaction").catch(() => undefined);
    const start = view?.compactionUnderway ?? view?.windowStart;
    if (view && start === state.delivery.windowStart) return engine.update(state, { type: "compaction-abandoned" });
    engine.update(state, { type: "compacted", windowStart: start, announced: false });
    // The recent turns a compaction keeps may hold rules already.
    if (view && !view.compactionUnderway)
      engine.update(state, { type: "window-read", found: view.rules.map(({ marker }) => marker), settles: false, current: engine.rules().byName });
  }

  const calls: Turns = {
    userMessage: (message) =>
      guard(log, "chat.message", message.sessionID, {}, async () => {
        const { sessionID } = message;
        if (!sessions.get(sessionID)) return {};
        await engine.refresh();
        const state = served(sessionID);
        if (!state) return {};
        lastActiveSession = sessionID;
        state.agent = message.agent ?? state.agent;
        state.model = message.model ?? state.model;
        const running = delivery.inFlight(sessionID);
        if (running) await withTimeout(running, deps.firstMessageWaitMs ?? FIRST_MESSAGE_WAIT_MS);
        if (state.delivery.compacting) await joinCompactedWindow(sessionID, state);
        // A fork, a session from before a restart, or one whose rules prompt timed out: the history tells what the window holds.
        if (mustReadWindow(state.delivery)) {
          const view = await engine.readWindow(sessionID, "current").catch((error) => {
            // Unreadable history: deliver anyway; a rule read twice costs less than a rule missing.
            log.warn(`Could not read the history of session ${sessionID} (${errorText(error)}); delivering the rules with this message, though an earlier copy may be there`, {
              sessionID,
            });
            return undefined;
          });
          engine.update(state, { type: "window-read", found: view?.rules.map(({ marker }) => marker) ?? [], settles: true, current: engine.rules().byName });
        }
        // Messages are ordered by creation time: the user's must come after the rules.
        const created = userMessageDate(state.delivery, message.created);
        const prompt = await takeInPrompt(engine, sessionID, state, message.texts, message.files);
        const first = !holdsRules(state.delivery);
        const composed = composeFor(engine, sessionID, state, prompt);
        // This message holds every rule the session needs: a rules prompt still on its way would only repeat them.
        engine.update(state, { type: "user-message", composed, current: engine.rules().byName });
        if (!composed) return { created };
        log.debug(`Delivered ${composed.included.length} rules to session ${sessionID} inside its user message`, { sessionID });
        return { created, rules: { text: composed.text, marker: markerFor(composed, first ? "chat.message" : "prompt", { warnings: engine.rules().warnings }) } };
      }),

    ownPromptStored: (sessionID, marker, created) =>
      guard(log, "chat.message", sessionID, { hide: false }, () => {
        const state = sessions.get(sessionID);
        if (!state) return { hide: false };
        // If the rules already went another way (or it would land after what the model read), this late copy stays out of the model's sight.
        if (isSuperseded(state.delivery, marker.delivery)) return { hide: true };
        // The host is storing it now: what it carries is in the window from this moment, whether or not its answer reaches the plugin in time.
        engine.update(state, { type: "prompt-seen", delivery: marker.delivery, created, current: engine.rules().byName });
        return { hide: false };
      }),

    toolCalled: (sessionID, args) =>
      guard(log, "tool.execute.before", sessionID, undefined, () => {
        const state = served(sessionID);
        if (!state) return;
        lastActiveSession = sessionID;
        takeInToolCall(engine, state, "", args);
      }),

    toolFinished: (sessionID, tool, args, output) =>
      guard(log, "tool.execute.after", sessionID, undefined, async () => {
        if (tool === RULE_TOOL_NAME || !open(sessionID)) return undefined;
        await engine.refresh();
        const state = served(sessionID);
        if (!state) return undefined;
        takeInToolCall(engine, state, tool, args, output);
        // A new session's first delivery will carry them; rules owed since a compaction go now.
        if (!holdsRules(state.delivery) && !rulesOwed(state.delivery)) return undefined;
        const composed = composeFor(engine, sessionID, state);
        if (!composed || composed.included.length === 0) return undefined;
        // The model reads the tool result in its very next request: no extra turn, no silent prompt mid-turn.
        engine.update(state, { type: "tool-result", composed, current: engine.rules().byName });
        log.debug(`Delivered ${composed.included.length} rules to session ${sessionID} with the result of ${tool}`, { sessionID });
        return { text: composed.text, marker: markerFor(composed, tool, { warnings: engine.rules().warnings }) };
      }),

    fileEdited: (path) =>
      guard(log, "file.edited", lastActiveSession, undefined, () => {
        // Delivered with the session's next tool result or message.
        const state = lastActiveSession === undefined ? undefined : served(lastActiveSession);
        if (state) addFile(state.activation, normalisePath(path, deps.directory, engine.root));
      }),

    readRule(sessionID, name) {
      const answer = answerRuleRequest(engine.rules().list, name);
      const state = sessions.get(sessionID);
      if (answer.rule && state) {
        engine.update(state, { type: "rule-read", rule: answer.rule });
        if (!state.activation.activated.has(answer.rule.name)) state.activation.activated.set(answer.rule.name, { kind: "rule-tool" });
      }
      return answer.rule ? { output: answer.output, marker: ruleReadMarker(answer.rule.name) } : { output: answer.output };
    },
  };
  return {
    calls,
    close: () => {
      lastActiveSession = undefined;
    },
  };
}
