/** Bounded waiting: every hook OpenCode awaits returns within its limits, whatever the host or the disk does. */

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

/** The promise's value, or undefined once `ms` have passed (the promise goes on). */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

/**
 * Runs calls, each with its own timeout and aborted when `stopped` aborts. A
 * timer and a controller held here, not `AbortSignal.timeout()`, which the
 * runtime may collect before it fires; both are released when the call ends.
 */
export function boundedCalls(stopped: AbortSignal) {
  return async <T>(timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    const abort = () => controller.abort(stopped.reason);
    const timer = setTimeout(() => controller.abort(new DOMException(`no answer in ${timeoutMs} ms`, "TimeoutError")), timeoutMs);
    stopped.addEventListener("abort", abort);
    try {
      return await call(controller.signal);
    } finally {
      clearTimeout(timer);
      stopped.removeEventListener("abort", abort);
    }
  };
}

export type BoundedCall = ReturnType<typeof boundedCalls>;

/** An error as one line for the log. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True for a call given up (its timeout, or the plugin stopping): whether it was carried out is not known. */
export function outcomeUnknown(error: unknown): boolean {
  return (error as Error)?.name === "TimeoutError" || (error as Error)?.name === "AbortError";
}

/** Runs a host's call; a failure is logged with its context and the call answers `fallback`: nothing may break the user's session. */
export async function guard<T>(
  log: { error(message: string, extra?: Record<string, unknown>): void },
  what: string,
  sessionID: string | undefined,
  fallback: T,
  work: () => Promise<T> | T,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    log.error(`Handling ${what}${sessionID ? ` for session ${sessionID}` : ""} failed: ${errorText(error)}`, { sessionID, hook: what, error: errorText(error) });
    return fallback;
  }
}
