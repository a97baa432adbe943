/**
 * The engine's calls, as a host makes them (`contract.ts`): each turns what
 * the host says into the session's event, lets the runner carry it through,
 * and answers in the contract's terms; what the event means is the session
 * model's to say (`session/step.ts`). Each catches its own errors, logged
 * under the host's label for the call.
 */
import type { SessionFacts } from "../conditions/list.js";
import type { Logger } from "../log.js";
import type { Rule } from "../rule/rule.js";
import { answerRuleRequest } from "../render/rule-request.js";
import { resultLeftAlone } from "../session/enforced.js";
import { ruleTokens } from "../render/tokens.js";
import { ruleReadMarker } from "../session/marker.js";
import type { PathBase } from "../session/paths.js";
import type { RuleSet } from "../session/session.js";
import { sameFacts } from "../session/step.js";
import type { SessionStore } from "../session/store.js";
import { servedSession } from "../session/window-queries.js";
import type { HostLabels, Rulebook } from "./contract.js";
import type { Runner } from "./runner.js";
import { guard } from "./timing.js";

interface CallParts {
  sessions: SessionStore;
  runner: Runner;
  rules(): RuleSet;
  /** Picks up changed rule files, and those the look-ups under way find, within its bound. */
  refresh(): Promise<void>;
  /** Starts looking up rule files from the paths a session touched (as written); the next refresh waits for it. */
  lookUp(paths: readonly string[]): void;
  log: Logger;
  labels: HostLabels;
  /** Where paths are resolved from: the host's directory, the project's root, the user's home. */
  place: PathBase;
  /** Whether a subagent's session gets rules. */
  subagents: boolean;
  /** The facts the project tells now that `rules` read (its branch: `observed-facts.ts`). */
  observe(rules: readonly Rule[]): Promise<SessionFacts>;
}

export function rulebookCalls(parts: CallParts): Rulebook {
  const { sessions, runner, log, place } = parts;
  const label = (call: keyof Rulebook) => parts.labels[call] ?? call;
  /** The last session seen working while it gets rules: a touched file names no session. */
  let lastActiveSession: string | undefined;
  const working = (sessionID: string) => {
    const state = sessions.peek(sessionID);
    if (state && servedSession(state.window, parts.rules().list.length)) lastActiveSession = sessionID;
  };

  /** The project's facts read again; a change is the session's to act on at its next rules message. */
  const observeFor = async (sessionID: string) => {
    const facts = await parts.observe(parts.rules().list);
    if (!sameFacts(sessions.peek(sessionID)?.observed, facts))
      await runner.drive(sessionID, { type: "facts-observed", facts });
  };

  return {
    sessionSeen: (session) =>
      guard(log, label("sessionSeen"), session.id, undefined, async () => {
        await parts.refresh();
        if (!sessions.open(session.id)) return;
        const { id, parentID, agent, model, hasHistory } = session;
        const ignored = parentID !== undefined && !parts.subagents;
        await runner.drive(id, { type: "seen", ignored, hasHistory, agent, model, rules: parts.rules() });
        // After `seen`: the host's next call must find the session as it is (a subagent's ignored); the silent
        // delivery composes after a grace period, with the facts read by then.
        await observeFor(id);
      }),

    compactionBegan(sessionID) {
      // Recorded at once (the step asks for nothing to await): the host's next call already sees it.
      if (sessions.peek(sessionID))
        void guard(log, label("compactionBegan"), sessionID, undefined, () =>
          runner.drive(sessionID, { type: "compaction-began" }),
        );
    },

    windowRestarted: (sessionID, choice, windowStart) =>
      guard(log, label("windowRestarted"), sessionID, undefined, async () => {
        if (!sessions.open(sessionID)) return;
        const now = Date.now();
        await runner.drive(sessionID, { type: "window-restarted", windowStart, ...choice, now, rules: parts.rules() });
      }),

    compactionEnded: (sessionID) =>
      guard(log, label("compactionEnded"), sessionID, undefined, async () => {
        await parts.refresh();
        if (!sessions.open(sessionID)) return;
        await runner.drive(sessionID, { type: "compaction-ended", rules: parts.rules() });
      }),

    sessionGone(sessionID) {
      // Its turn is over (what that says is noted at once, before it is freed).
      if (sessions.peek(sessionID)) void runner.drive(sessionID, { type: "session-ended" });
      sessions.delete(sessionID);
    },

    userTurn: (message) =>
      guard(log, label("userTurn"), message.sessionID, {}, async () => {
        const { sessionID } = message;
        if (!sessions.open(sessionID)) return {};
        parts.lookUp(message.files);
        // After the refresh: the rules just reloaded say which facts are read.
        await parts.refresh();
        await observeFor(sessionID);
        working(sessionID);
        const answer = await runner.drive(sessionID, {
          type: "user-turn",
          prompt: message.texts.join("\n"),
          attachments: message.files,
          created: message.created,
          agent: message.agent,
          model: message.model,
          place,
          rules: parts.rules(),
        });
        return {
          ...(answer?.created === undefined ? {} : { created: answer.created }),
          ...(answer?.rules ? { rules: answer.rules } : {}),
        };
      }),

    ownRulesStored: (sessionID, marker, created) =>
      guard(log, label("ownRulesStored"), sessionID, { hide: false }, async () => {
        if (!sessions.open(sessionID)) return { hide: false };
        const { delivery } = marker;
        const answer = await runner.drive(sessionID, {
          type: "own-rules-stored",
          delivery,
          created,
          rules: parts.rules(),
        });
        return { hide: answer?.hide === true };
      }),

    toolAboutToRun: (sessionID, call) =>
      // A failure to check lets the call run: the fallback is no verdict.
      guard(log, label("toolAboutToRun"), sessionID, {}, async () => {
        if (!sessions.open(sessionID)) return {};
        working(sessionID);
        // While the tool runs: its result waits for what the look-up finds (a sub-folder's GEMINI.md).
        parts.lookUp(call.files);
        const answer = await runner.drive(sessionID, { type: "call-proposed", call, place, rules: parts.rules() });
        return answer?.refusal ? { refusal: answer.refusal } : {};
      }),

    toolResult: (sessionID, touched) =>
      guard(log, label("toolResult"), sessionID, undefined, async () => {
        const state = sessions.open(sessionID);
        // Its result carries nothing: it waits for no reload.
        if (!state || resultLeftAlone(state, touched.callID ?? touched.tool)) return undefined;
        await parts.refresh();
        await observeFor(sessionID);
        const { tool, callID, readCall, listed, fileText } = touched;
        const answer = await runner.drive(sessionID, {
          type: "tool-finished",
          tool,
          ...(callID === undefined ? {} : { callID }),
          readCall,
          ...(listed === undefined ? {} : { listed }),
          ...(fileText === undefined ? {} : { fileText }),
          place,
          rules: parts.rules(),
        });
        return answer?.rules;
      }),

    fileTouched: (path) =>
      guard(log, label("fileTouched"), lastActiveSession, undefined, async () => {
        // Delivered with the session's next tool result or message.
        if (lastActiveSession === undefined) return;
        parts.lookUp([path]);
        await runner.drive(lastActiveSession, { type: "file-touched", path, place, rules: parts.rules() });
      }),

    ruleRequested(sessionID, name) {
      const answer = answerRuleRequest(parts.rules().list, name);
      if (!answer.rule) return { output: answer.output };
      // Recorded at once, as the one above.
      if (sessions.open(sessionID))
        void guard(log, label("ruleRequested"), sessionID, undefined, () =>
          runner.drive(sessionID, { type: "rule-requested", rule: answer.rule as Rule }),
        );
      return { output: answer.output, marker: ruleReadMarker(answer.rule.name, ruleTokens(answer.rule)) };
    },
  };
}
