/** Bounded waiting: every hook OpenCode awaits returns within its limits, whatever the host or the disk does. */
import type { Logger } from "../log.js";

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

/** Who hears what a call answered after it was given up; its answer goes nowhere else. */
interface LateAnswers<T = unknown> {
  log: Pick<Logger, "info">;
  /** The call's answer, in the log line: "The host's answer to …". */
  what: string;
  /** Undoes what a late answer holds (a registration made after all). */
  drop?: (value: T) => void;
}

interface RaceOptions<T> {
  /** Gives up at once when it aborts (the plugin stopping). */
  stopped?: AbortSignal;
  late?: LateAnswers<T>;
}

/**
 * Settles as `promise` does, or as `expired(reason)` once `ms` have passed or
 * `stopped` aborts, whichever comes first. The promise is not awaited past
 * that: a callee that ignores its abort cannot hold the caller. What it
 * answers later (or fails with) is dropped, said in the log when `late` is
 * given; a late failure never goes unhandled.
 */
function race<T, U>(
  promise: Promise<T>,
  ms: number | undefined,
  expired: (reason: unknown) => Promise<U>,
  options: RaceOptions<T>,
): Promise<T | U> {
  const { stopped, late } = options;
  return new Promise<T | U>((resolve, reject) => {
    let givenUp: { reason: unknown; at: number } | undefined;
    let settled = false;
    const end = () => {
      settled = true;
      clearTimeout(timer);
      stopped?.removeEventListener("abort", stop);
    };
    const giveUp = (reason: unknown) => {
      if (settled) return;
      end();
      givenUp = { reason, at: Date.now() };
      resolve(expired(reason));
    };
    const timer =
      ms === undefined
        ? undefined
        : setTimeout(() => giveUp(new DOMException(`no answer in ${ms} ms`, "TimeoutError")), ms);
    const stop = () => giveUp(stopped?.reason);
    stopped?.addEventListener("abort", stop);
    promise.then(
      (value) => {
        if (!settled) {
          end();
          resolve(value);
        } else if (givenUp && late) {
          late.log.info(
            `${late.what} came ${Date.now() - givenUp.at} ms after it was given up; the answer was dropped`,
          );
          late.drop?.(value);
        }
      },
      (error: unknown) => {
        if (!settled) {
          end();
          reject(error);
        } else if (givenUp && late && error !== givenUp.reason && !outcomeUnknown(error)) {
          // Failing with the reason it was given up (or as aborted) is the callee honouring its abort: nothing to say.
          late.log.info(
            `${late.what} failed ${Date.now() - givenUp.at} ms after it was given up (${errorText(error)}); the failure was dropped`,
          );
        }
      },
    );
    if (stopped?.aborted) stop();
  });
}

/** The promise's value, or undefined once `ms` have passed (the promise goes on; a late answer is dropped, logged when `late` is given). */
export function withTimeout<T>(promise: Promise<T>, ms: number, late?: LateAnswers<T>): Promise<T | undefined> {
  return race(promise, ms, async () => undefined, { late });
}

/** The promise's value; past `ms` (none: no time limit) or when `stopped` aborts, a rejection naming the reason (`outcomeUnknown`): the call may still be carried out. */
export function byDeadline<T>(promise: Promise<T>, ms: number | undefined, options: RaceOptions<T> = {}): Promise<T> {
  return race(promise, ms, (reason) => Promise.reject(reason), options);
}

/**
 * Runs calls, each with its own timeout and aborted when `stopped` aborts. A
 * timer and a controller held here, not `AbortSignal.timeout()`, which the
 * runtime may collect before it fires; both are released when the call ends.
 * The call ends by its deadline whether or not the callee honours the abort:
 * what it answers after is dropped, said in `log`.
 */
export function boundedCalls(stopped: AbortSignal, log: Pick<Logger, "info">) {
  return <T>(what: string, timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    // Stopped: no call is made at all.
    if (stopped.aborted) return Promise.reject(stopped.reason);
    const controller = new AbortController();
    let started: Promise<T>;
    try {
      started = call(controller.signal);
    } catch (error) {
      return Promise.reject(error);
    }
    // The callee hears it was given up (the same reason the caller gets); the caller does not wait for it to listen.
    return byDeadline(started, timeoutMs, { stopped, late: { log, what } }).catch((error: unknown) => {
      if (outcomeUnknown(error)) controller.abort(error);
      throw error;
    });
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
    log.error(`Handling ${what}${sessionID ? ` for session ${sessionID}` : ""} failed: ${errorText(error)}`, {
      sessionID,
      hook: what,
      error: errorText(error),
    });
    return fallback;
  }
}
