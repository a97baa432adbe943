/**
 * The engine's calls, as a host makes them (`contract.ts`): each turns what
 * the host says into the session's event, lets the runner carry it through,
 * and answers in the contract's terms. Each catches its own errors, logged
 * under the host's label for the call.
 */
import type { Logger } from "../log.js";
import type { Rule } from "../rule/rule.js";
import { answerRuleRequest } from "../render/rule-request.js";
import { ruleReadMarker } from "../session/marker.js";
import { listedInProject, normalisePath, pathsNamedInPrompt } from "../session/paths.js";
import type { RuleSet, SessionState } from "../session/session.js";
import type { SessionStore } from "../session/store.js";
import { servedSession } from "../session/window-queries.js";
import type { ProposedCall } from "../enforce/proposed.js";
import { type ContentHit, contentHits, hasContentRules } from "../select/content.js";
import type { HostLabels, Rulebook, ToolTouch, ToolVerdict } from "./contract.js";
import type { Runner } from "./runner.js";
import { errorText, guard } from "./timing.js";

/** How long the text of one tool result may be scanned for content conditions. */
const CONTENT_SCAN_MS = 250;

export interface CallParts {
  sessions: SessionStore;
  runner: Runner;
  rules(): RuleSet;
  /** Picks up changed rule files, within its bound. */
  refresh(): Promise<void>;
  log: Logger;
  labels: HostLabels;
  /** Where paths are resolved from: the host's directory, the project's root, the user's home. */
  place: { directory: string; projectRoot: string; home: string };
  /** Whether a subagent's session gets rules. */
  subagents: boolean;
  /** Checks a call about to run against the rules that forbid (`check-call.ts`). */
  checkCall(sessionID: string, call: ProposedCall): Promise<ToolVerdict>;
}

export function rulebookCalls(parts: CallParts): Rulebook {
  const { sessions, runner, log, place } = parts;
  const label = (call: keyof Rulebook) => parts.labels[call] ?? call;
  /** The last session seen working: a touched file names no session. */
  let lastActiveSession: string | undefined;
  /** The session's state while it is served: there are rules, and it is not ignored. */
  const served = (sessionID: string): SessionState | undefined => {
    const state = sessions.get(sessionID);
    return state && servedSession(state.window, parts.rules().list.length) ? state : undefined;
  };
  const inProject = (raw: string) => normalisePath(raw, place.directory, place.projectRoot);

  /** The rules the text a call brought in activates by content, within CONTENT_SCAN_MS; the rest of a text not reached is logged. */
  const contentIn = (sessionID: string, touched: ToolTouch): ContentHit[] => {
    const { list } = parts.rules();
    if (!touched.texts || !hasContentRules(list)) return [];
    const texts = touched.texts();
    const known = sessions.peek(sessionID)?.activation.contentMatches ?? new Map();
    const start = performance.now();
    const scan = contentHits(
      list,
      texts.map(({ file, text }) => ({ file: inProject(file), text })),
      known,
      { now: () => performance.now(), deadline: start + CONTENT_SCAN_MS },
    );
    if (!scan.complete)
      log.warn(
        `The text ${touched.tool} brought in was not all looked at for rules with content conditions (over ${CONTENT_SCAN_MS} ms); rules it did not reach were not activated by it`,
        { sessionID },
      );
    return scan.hits;
  };

  return {
    sessionSeen: (session) =>
      guard(log, label("sessionSeen"), session.id, undefined, async () => {
        await parts.refresh();
        if (parts.rules().list.length === 0 || !sessions.get(session.id)) return;
        const { id, parentID, agent, model, hasHistory } = session;
        await runner.drive(id, {
          type: "seen",
          ignored: parentID !== undefined && !parts.subagents,
          hasHistory,
          agent,
          model,
        });
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
        if (!served(sessionID)) return;
        await runner.drive(sessionID, { type: "window-restarted", windowStart, ...choice, now: Date.now() });
      }),

    compactionEnded: (sessionID) =>
      guard(log, label("compactionEnded"), sessionID, undefined, async () => {
        await parts.refresh();
        if (!served(sessionID)) return;
        await runner.drive(sessionID, { type: "compaction-ended" });
      }),

    sessionGone(sessionID) {
      sessions.delete(sessionID);
    },

    userTurn: (message) =>
      guard(log, label("userTurn"), message.sessionID, {}, async () => {
        const { sessionID } = message;
        if (!sessions.get(sessionID)) return {};
        await parts.refresh();
        if (!served(sessionID)) return {};
        lastActiveSession = sessionID;
        const prompt = message.texts.join("\n");
        const files = message.files.flatMap((raw) => {
          // One odd attachment (a file URL that does not decode) is that attachment's problem only.
          try {
            return [inProject(raw)];
          } catch (error) {
            log.warn(
              `A part of a message in session ${sessionID} could not be read (${errorText(error)}); the rest of the message was`,
              { sessionID },
            );
            return [];
          }
        });
        const named = pathsNamedInPrompt(prompt, parts.rules().names, place);
        const turn = { prompt, files, named, created: message.created };
        const answer = await runner.drive(sessionID, {
          type: "user-turn",
          turn,
          agent: message.agent,
          model: message.model,
        });
        return {
          ...(answer?.created === undefined ? {} : { created: answer.created }),
          ...(answer?.rules ? { rules: answer.rules } : {}),
        };
      }),

    ownRulesStored: (sessionID, marker, created) =>
      guard(log, label("ownRulesStored"), sessionID, { hide: false }, async () => {
        if (!sessions.get(sessionID)) return { hide: false };
        const answer = await runner.drive(sessionID, {
          type: "own-rules-stored",
          delivery: marker.delivery,
          created,
          rules: parts.rules(),
        });
        return { hide: answer?.hide === true };
      }),

    toolAboutToRun: (sessionID, call) =>
      // A failure to check lets the call run: the fallback is no verdict.
      guard(log, label("toolAboutToRun"), sessionID, {}, async () => {
        if (served(sessionID)) {
          lastActiveSession = sessionID;
          await runner.drive(sessionID, { type: "files-touched", files: call.files.map(inProject) });
        }
        // Checked whether or not the session gets rules: a subagent's calls are held to the rules like its parent's.
        return parts.checkCall(sessionID, call);
      }),

    toolResult: (sessionID, touched) =>
      guard(log, label("toolResult"), sessionID, undefined, async () => {
        // A call that broke a `warn` rule gets it in its result, even in a session that gets no rules otherwise.
        const warned = sessions.peek(sessionID)?.warned?.has(touched.callID ?? touched.tool) === true;
        if (sessions.get(sessionID)?.window.stage === "ignored" && !warned) return undefined;
        await parts.refresh();
        if (!served(sessionID) && !warned) return undefined;
        const files = [...touched.files, ...listedInProject(touched.listed ?? [], place.projectRoot)].map(inProject);
        const contents = contentIn(sessionID, touched);
        const answer = await runner.drive(sessionID, {
          type: "tool-finished",
          tool: touched.tool,
          callID: touched.callID,
          files,
          contents,
          rules: parts.rules(),
        });
        return answer?.rules;
      }),

    fileTouched: (path) =>
      guard(log, label("fileTouched"), lastActiveSession, undefined, async () => {
        // Delivered with the session's next tool result or message.
        if (lastActiveSession === undefined || !served(lastActiveSession)) return;
        await runner.drive(lastActiveSession, { type: "files-touched", files: [inProject(path)] });
      }),

    ruleRequested(sessionID, name) {
      const answer = answerRuleRequest(parts.rules().list, name);
      if (!answer.rule) return { output: answer.output };
      // Recorded at once, as the one above.
      if (sessions.get(sessionID))
        void guard(log, label("ruleRequested"), sessionID, undefined, () =>
          runner.drive(sessionID, { type: "rule-requested", rule: answer.rule as Rule }),
        );
      return { output: answer.output, marker: ruleReadMarker(answer.rule.name) };
    },
  };
}
