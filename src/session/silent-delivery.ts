/**
 * The session's silent delivery under way, as its state records it: one at a
 * time. A new session's delivery asked again joins the one under way; a
 * compaction's follows it. A try that fails is tried again after a backoff,
 * a bounded number of times, then left for the session's next event (a user's
 * message, a tool result, another compaction). Pure.
 */
import type { SilentTrigger } from "./marker.js";

export interface RetryPolicy {
  readonly tries: number;
  /** Wait before try n+1 (index n-1), in milliseconds; the last repeats once the list runs out. */
  readonly backoffMs: readonly number[];
}

export const DEFAULT_RETRY: RetryPolicy = { tries: 3, backoffMs: [200, 1000] };

export interface SilentDelivery {
  readonly trigger: SilentTrigger;
  /** The try under way, or waited for during a backoff; from 1. */
  readonly attempt: number;
  readonly retry: RetryPolicy;
  /** A compaction came while it was under way: its delivery follows this one. */
  readonly queued?: "compaction";
}

/** How long to wait after try `attempt` failed. */
export const backoffAfter = ({ backoffMs }: RetryPolicy, attempt: number): number =>
  backoffMs[attempt - 1] ?? backoffMs.at(-1) ?? 0;

/**
 * Why a try failed: the host did not store the prompt (or did not answer), or the history that would tell whether an
 * earlier prompt was stored could not be read, or the plugin's own code broke off.
 */
export type FailedTry =
  | { readonly kind: "not-sent"; readonly error: string }
  | { readonly kind: "history-unreadable-with-pending" }
  | { readonly kind: "broke"; readonly error: string };
