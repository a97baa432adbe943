/**
 * The adapter's calls to OpenCode 2 beyond its hooks: registering them,
 * reading a session's info, following its events. Each bounded or caught:
 * a host that refuses or does not answer costs the plugin a feature, never
 * the user's session.
 */
import { errorText, withTimeout } from "../../engine/timing.js";
import type { Logger } from "../../log.js";
import type { PluginContext, Registration, SessionInfo } from "./api.js";

/** How long a hook waits for the host's session info or the plugin's storage before going on without. */
export const HOST_CALL_MS = 1000;

/** Registers each; one OpenCode refuses is logged and left out, the others stand. */
export async function registerAll(log: Logger, steps: Array<[string, () => Promise<Registration>]>): Promise<Registration[]> {
  const settled = await Promise.allSettled(steps.map(async ([, register]) => register()));
  return settled.flatMap((result, i) => {
    if (result.status === "fulfilled") return [result.value];
    log.error(`OpenCode refused the plugin's ${steps[i]?.[0]} (${errorText(result.reason)}); the plugin works without it`);
    return [];
  });
}

/** Frees a deleted session's state. OpenCode does not await its subscribers; nothing here needs it to. */
export async function followSessions(ctx: PluginContext, signal: AbortSignal, deleted: (sessionID: string) => Promise<void> | void, log: Logger): Promise<void> {
  try {
    for await (const event of ctx.event.subscribe({ signal })) {
      const sessionID = event?.data?.sessionID;
      if (event?.type !== "session.deleted" || typeof sessionID !== "string") continue;
      // One session that cannot be freed does not stop the others being freed.
      try {
        await deleted(sessionID);
      } catch (error) {
        log.error(`Freeing deleted session ${sessionID} failed: ${errorText(error)}`, { sessionID });
      }
    }
  } catch (error) {
    if (!signal.aborted) log.warn(`Stopped following OpenCode's events (${errorText(error)}); deleted sessions are freed when OpenCode stops`);
  }
}

/** The session's parent (a subagent's session has one), agent and model; none when OpenCode does not answer in time. */
export async function sessionInfo(ctx: PluginContext, sessionID: string, log: Logger): Promise<SessionInfo | undefined> {
  try {
    return await withTimeout(ctx.session.get({ sessionID }), HOST_CALL_MS);
  } catch (error) {
    log.warn(`Could not read session ${sessionID} from OpenCode (${errorText(error)}); treating it as a top-level session`, { sessionID });
    return undefined;
  }
}
