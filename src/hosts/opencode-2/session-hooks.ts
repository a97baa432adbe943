/**
 * OpenCode 2's session hooks: `prompt` (a user's input, before it is
 * admitted) and `context` (before every model request), over the engine.
 * Unguarded here: `plugin.ts` guards each where it registers it.
 */
import type { Rulebook } from "../../engine/contract.js";
import type { Logger } from "../../log.js";
import type { ModelRef } from "../../conditions/models.js";
import { modelRef } from "../opencode/model-ref.js";
import { required } from "../opencode/guarded-hooks.js";
import { promptsInArrival } from "./arriving-prompts.js";
import type { PluginContext, SessionContext, SessionPrompt } from "./api.js";
import { sessionInfo } from "./host-calls.js";
import { endingPrompts } from "./request-prompts.js";
import { placeRules } from "./request-rules.js";
import { MAX_ENTRIES, type RulesLedger } from "./session-port.js";
import { attachedFile } from "./shapes.js";

export function sessionHooks(
  ctx: PluginContext,
  { rulebook, ledger, log }: { rulebook: Rulebook; ledger: RulesLedger; log: Logger },
) {
  const met = new Map<string, Promise<void>>();
  /**
   * A session's first request introduces it to the engine (a new session, or
   * one from before a restart), as the agent and model the request names: the
   * user may have switched since the session was stored. The session's stored
   * ones stand in only where the request names none.
   */
  const meet = (sessionID: string, seen: { agent?: string; model?: ModelRef }) => {
    let meeting = met.get(sessionID);
    if (!meeting) {
      // A meeting that failed is tried again by the session's next request.
      meeting = introduce(sessionID, seen).catch((error) => {
        met.delete(sessionID);
        throw error;
      });
      met.set(sessionID, meeting);
    }
    return meeting;
  };
  // Each host call here ends by its deadline (`host-calls.ts`, `session-port.ts`).
  const introduce = async (sessionID: string, seen: { agent?: string; model?: ModelRef }) => {
    const [info, restored] = await Promise.all([sessionInfo(ctx, sessionID, log), ledger.restore(sessionID)]);
    await rulebook.sessionSeen({
      id: sessionID,
      parentID: info?.parentID,
      agent: seen.agent ?? info?.agent,
      model: seen.model ?? modelRef(info?.model),
      hasHistory: restored === true,
    });
  };

  /** Prompts whose rules wait for the first request that carries them: OpenCode 2 names the agent and model only there. */
  const arriving = promptsInArrival();

  const prompt = async (event: SessionPrompt) => {
    arriving.add(required(event.sessionID, "the sessionID"), {
      messageID: required(event.messageID, "the messageID"),
      texts: typeof event.prompt?.text === "string" ? [event.prompt.text] : [],
      files: (Array.isArray(event.prompt?.files) ? event.prompt.files : []).flatMap(attachedFile),
    });
  };

  const context = async (event: SessionContext) => {
    const sessionID = required(event.sessionID, "the sessionID");
    if (!Array.isArray(event.messages)) throw new TypeError("the request's messages are not a list");
    const seen = { agent: event.agent, model: modelRef(event.model) };
    await meet(sessionID, seen);
    if (placeRules(event.messages, ledger.entries(sessionID)).moved || ledger.entries(sessionID).length > MAX_ENTRIES) {
      // A compaction checkpoint (or a revert) left the rules' places out of the request: the window starts again, empty.
      ledger.startWindow(sessionID);
      await rulebook.windowRestarted(sessionID, seen);
    }
    // A user's message reaches the model here first, as the agent and model this request names (the user may have switched since the last);
    // one no `prompt` hook saw is read from this request (a host that never calls the hook, input that came another way).
    const arrived = arriving.takeArrived(sessionID, event.messages);
    for (const prompt of [...arrived, ...arriving.takeUnseen(sessionID, endingPrompts(event.messages))]) {
      const answer = await rulebook.userTurn({
        sessionID,
        texts: prompt.texts,
        files: prompt.files,
        ...seen,
        created: Date.now(),
      });
      // Before the user's words, in every request from this one on.
      if (answer.rules)
        ledger.add(sessionID, { text: answer.rules.text, marker: answer.rules.marker, awaits: prompt.messageID });
    }
    const placement = placeRules(event.messages, ledger.entries(sessionID));
    if (placement.moved) return;
    ledger.update(sessionID, placement.entries);
    event.messages = placement.messages;
  };

  /** What these hooks keep of a session goes when the engine forgets it (`undefined`: every session). */
  const forget = (sessionID?: string) => {
    if (sessionID === undefined) {
      met.clear();
      arriving.forget();
      return;
    }
    arriving.forget(sessionID);
    met.delete(sessionID);
  };

  return { prompt, context, forget };
}
