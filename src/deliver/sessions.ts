/**
 * Which sessions hold the rules, and the one delivery under way per session.
 *
 * - `session.created`: deliver unless the session already has the rules; a
 *   second event while the first delivery is in flight joins it (one message).
 * - `session.compacted`: compaction dropped the rules from the model's
 *   context, so forget the session, deliver again, remember it again.
 * - A failed delivery is retried a bounded number of times, then left for
 *   the session's next event; the session is not marked delivered.
 */
export type DeliveryTrigger = "session.created" | "session.compacted";

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

export interface SessionTracker {
  deliver(sessionID: string, trigger: DeliveryTrigger): Promise<DeliveryResult>;
  isDelivered(sessionID: string): boolean;
  /** The delivery under way for this session, if any. */
  inFlight(sessionID: string): Promise<DeliveryResult> | undefined;
  /** Marks a session as holding the rules by another path (e.g. a part of its first message). */
  markDelivered(sessionID: string): void;
  forget(sessionID: string): void;
}

export interface TrackerDeps {
  /** Sends the rules; throws when they were not stored. */
  send(sessionID: string, trigger: DeliveryTrigger): Promise<void>;
  onFailure(sessionID: string, trigger: DeliveryTrigger, error: unknown, attempt: number, final: boolean): void;
  /** False for a session that was deleted (or a plugin disposed): no more tries, nothing remembered. */
  alive?: (sessionID: string) => boolean;
  retry?: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
}

export function createSessionTracker(deps: TrackerDeps): SessionTracker {
  const delivered = new Set<string>();
  const inFlight = new Map<string, Promise<DeliveryResult>>();
  const retry = deps.retry ?? DEFAULT_RETRY;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  const alive = deps.alive ?? (() => true);
  const attempt = async (sessionID: string, trigger: DeliveryTrigger): Promise<DeliveryResult> => {
    let lastError: unknown;
    for (let n = 1; n <= retry.tries; n++) {
      if (!alive(sessionID)) return { delivered: false };
      try {
        await deps.send(sessionID, trigger);
        if (!alive(sessionID)) return { delivered: false };
        delivered.add(sessionID);
        return { delivered: true };
      } catch (error) {
        lastError = error;
        deps.onFailure(sessionID, trigger, error, n, n === retry.tries);
        if (n < retry.tries) await sleep(retry.backoffMs[n - 1] ?? retry.backoffMs.at(-1) ?? 0);
      }
    }
    return { delivered: false, error: lastError };
  };

  const start = (sessionID: string, trigger: DeliveryTrigger, after?: Promise<unknown>): Promise<DeliveryResult> => {
    const run = (after ? after.then(() => attempt(sessionID, trigger)) : attempt(sessionID, trigger)).finally(() => {
      if (inFlight.get(sessionID) === run) inFlight.delete(sessionID);
    });
    inFlight.set(sessionID, run);
    return run;
  };

  return {
    deliver(sessionID, trigger) {
      const running = inFlight.get(sessionID);
      if (trigger === "session.created") {
        if (running) return running;
        if (delivered.has(sessionID)) return Promise.resolve({ delivered: true });
        return start(sessionID, trigger);
      }
      // Compaction: whatever the session had is gone from the model's context.
      delivered.delete(sessionID);
      return start(sessionID, trigger, running);
    },
    isDelivered: (sessionID) => delivered.has(sessionID),
    inFlight: (sessionID) => inFlight.get(sessionID),
    markDelivered: (sessionID) => void delivered.add(sessionID),
    forget: (sessionID) => void delivered.delete(sessionID),
  };
}
