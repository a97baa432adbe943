/**
 * The adapter's calls to OpenCode 2 beyond its hooks: registering them,
 * reading a session's info, following its events. Each bounded or caught:
 * a host that refuses or does not answer costs the plugin a feature, never
 * the user's session, and never holds the plugin's setup, hooks or cleanup
 * past its deadline, whether or not the host honours an abort.
 */
import { byDeadline, errorText, withTimeout } from "../../engine/timing.js";
import type { Logger } from "../../log.js";
import type { PluginContext, Registration, SessionInfo } from "./api.js";

/** How long a hook waits for the host's session info or the plugin's storage before going on without. */
export const HOST_CALL_MS = 1000;
/** How long setup waits for OpenCode to take a registration, and its cleanup for OpenCode to undo one. */
export const REGISTER_MS = 5000;

/**
 * Registers each; one OpenCode refuses, or does not take within `REGISTER_MS`,
 * is logged and left out, the others stand. One taken after it was given up
 * is undone at once: the plugin said it works without it.
 */
export async function registerAll(
  log: Logger,
  steps: Array<[string, () => Promise<Registration>]>,
): Promise<Registration[]> {
  const settled = await Promise.allSettled(
    steps.map(async ([what, register]) =>
      byDeadline(register(), REGISTER_MS, {
        late: { log, what: `OpenCode's registration of the plugin's ${what}`, drop: undo },
      }),
    ),
  );
  return settled.flatMap((result, i) => {
    if (result.status === "fulfilled") return [result.value];
    log.error(
      `OpenCode refused the plugin's ${steps[i]?.[0]} (${errorText(result.reason)}); the plugin works without it`,
    );
    return [];
  });
}

/** Undoes a registration, within `REGISTER_MS`; a failure is the host's to keep. */
export async function undo(registration: Registration | undefined): Promise<void> {
  await byDeadline(
    Promise.resolve().then(() => registration?.dispose()),
    REGISTER_MS,
  ).catch(() => undefined);
}

/**
 * Frees a deleted session's state. OpenCode does not await its subscribers;
 * nothing here needs it to. Ends when `signal` aborts, whether or not the
 * host's stream does.
 */
export async function followSessions(
  ctx: PluginContext,
  signal: AbortSignal,
  deleted: (sessionID: string) => Promise<void> | void,
  log: Logger,
): Promise<void> {
  let events: AsyncIterator<unknown> | undefined;
  try {
    events = ctx.event.subscribe({ signal })[Symbol.asyncIterator]();
    for (;;) {
      const next = await byDeadline(events.next(), undefined, { stopped: signal });
      if (next.done) return;
      const event = next.value as { type?: unknown; data?: { sessionID?: unknown } } | null | undefined;
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
    if (!signal.aborted)
      log.warn(
        `Stopped following OpenCode's events (${errorText(error)}); deleted sessions are freed when OpenCode stops`,
      );
    // Told to end, not waited for: a stream that ignores its signal would hold this for ever.
    if (events)
      void Promise.resolve()
        .then(() => events?.return?.())
        .catch(() => undefined);
  }
}

/** The session's parent (a subagent's session has one), agent and model; none when OpenCode does not answer in time. */
export async function sessionInfo(
  ctx: PluginContext,
  sessionID: string,
  log: Logger,
): Promise<SessionInfo | undefined> {
  try {
    const info = await withTimeout(
      Promise.resolve().then(() => ctx.session.get({ sessionID })),
      HOST_CALL_MS,
      { log, what: `OpenCode's info on session ${sessionID}` },
    );
    if (info === undefined)
      log.warn(
        `OpenCode did not give session ${sessionID} within ${HOST_CALL_MS} ms; treating it as a top-level session`,
        { sessionID },
      );
    return info;
  } catch (error) {
    log.warn(
      `Could not read session ${sessionID} from OpenCode (${errorText(error)}); treating it as a top-level session`,
      { sessionID },
    );
    return undefined;
  }
}
