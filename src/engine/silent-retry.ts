/**
 * The one silent delivery under way per session, and its retries. Whether a
 * session holds the rules is its window model's to say (`holdsRules`).
 *
 * - `new-session`: deliver unless the session already holds the rules; a
 *   second call while the first delivery is in flight joins it (one message).
 * - `compaction`: compaction dropped the rules from the model's context:
 *   deliver again, after any delivery under way.
 * - A failed delivery is retried a bounded number of times, then left for
 *   the session's next event.
 */
import type { SilentTrigger } from "../session/marker.js";

export interface DeliveryResult {
  delivered: boolean;
  error?: unknown;
}

export interface RetryPolicy {
  tries: number;
  /** Wait before try n+1 (index n-1), in milliseconds. */
  backoffMs: number[];
}

export const DEFAULT_RETRY: RetryPolicy = { tries: 3, backoffMs: [200, 1000] };

export interface SilentDeliveries {
  deliver(sessionID: string, trigger: SilentTrigger): Promise<DeliveryResult>;
  /** The delivery under way for this session, if any. */
  inFlight(sessionID: string): Promise<DeliveryResult> | undefined;
}

export interface TrackerDeps {
  /** Sends the rules; throws when they were not stored. */
  send(sessionID: string, trigger: SilentTrigger): Promise<void>;
  onFailure(sessionID: string, trigger: SilentTrigger, error: unknown, attempt: number, final: boolean): void;
  /** False for a session that was deleted (or a plugin disposed): no more tries. */
  alive?: (sessionID: string) => boolean;
  /** The session's window holds the rules already: a new session's delivery is not due. */
  holdsRules: (sessionID: string) => boolean;
  retry?: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
}

export function silentDeliveries(deps: TrackerDeps): SilentDeliveries {
  const inFlight = new Map<string, Promise<DeliveryResult>>();
  const retry = deps.retry ?? DEFAULT_RETRY;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  const alive = deps.alive ?? (() => true);
  const attempt = async (sessionID: string, trigger: SilentTrigger): Promise<DeliveryResult> => {
    let lastError: unknown;
    for (let n = 1; n <= retry.tries; n++) {
      if (!alive(sessionID)) return { delivered: false };
      try {
        await deps.send(sessionID, trigger);
        return { delivered: alive(sessionID) };
      } catch (error) {
        lastError = error;
        deps.onFailure(sessionID, trigger, error, n, n === retry.tries);
        if (n < retry.tries) await sleep(retry.backoffMs[n - 1] ?? retry.backoffMs.at(-1) ?? 0);
      }
    }
    return { delivered: false, error: lastError };
  };

  const start = (sessionID: string, trigger: SilentTrigger, after?: Promise<unknown>): Promise<DeliveryResult> => {
    const run = (after ? after.then(() => attempt(sessionID, trigger)) : attempt(sessionID, trigger)).finally(() => {
      if (inFlight.get(sessionID) === run) inFlight.delete(sessionID);
    });
    inFlight.set(sessionID, run);
    return run;
  };

  return {
    deliver(sessionID, trigger) {
      const running = inFlight.get(sessionID);
      if (trigger === "new-session") {
        if (running) return running;
        if (deps.holdsRules(sessionID)) return Promise.resolve({ delivered: true });
        return start(sessionID, trigger);
      }
      // Compaction: whatever the session had is gone from the model's context.
      return start(sessionID, trigger, running);
    },
    inFlight: (sessionID) => inFlight.get(sessionID),
  };
}
