import { describe, expect, test, vi } from "vitest";
import { DEFAULT_RETRY, silentDeliveries, type TrackerDeps } from "../../src/engine/silent-retry.js";
import type { SilentTrigger } from "../../src/session/marker.js";

/** A promise with its resolve/reject exposed. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * The tracker with the part the session's delivery model plays in the engine:
 * a session whose send succeeded holds the rules; a compaction empties it.
 */
function setup(overrides: Partial<TrackerDeps> = {}) {
  const sent: Array<[string, SilentTrigger]> = [];
  const send = vi.fn(async (id: string, trigger: SilentTrigger) => {
    sent.push([id, trigger]);
  });
  const onFailure = vi.fn();
  const sleep = vi.fn(async (_ms: number) => undefined);
  const held = new Set<string>();
  const deps = { send, onFailure, sleep, ...overrides };
  const inner = silentDeliveries({
    ...deps,
    holdsRules: (id) => held.has(id),
    send: async (id, trigger) => {
      await deps.send(id, trigger);
      held.add(id);
    },
  });
  const tracker = {
    deliver(id: string, trigger: SilentTrigger) {
      if (trigger === "compaction") held.delete(id);
      return inner.deliver(id, trigger);
    },
    inFlight: inner.inFlight,
    isDelivered: (id: string) => held.has(id),
  };
  return { tracker, send, onFailure, sleep, sent };
}

describe("Silent Message Rule Injection (tracker)", () => {
  test("Rules sent on session creation: one send, session tracked", async () => {
    const { tracker, send } = setup();
    expect(tracker.isDelivered("ses_1")).toBe(false);
    await expect(tracker.deliver("ses_1", "new-session")).resolves.toEqual({ delivered: true });
    expect(send).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledWith("ses_1", "new-session");
    expect(tracker.isDelivered("ses_1")).toBe(true);
    expect(tracker.inFlight("ses_1")).toBeUndefined();
  });

  test("Rules not sent twice to same session: a repeated new-session delivery sends nothing", async () => {
    const { tracker, send } = setup();
    await tracker.deliver("ses_1", "new-session");
    await expect(tracker.deliver("ses_1", "new-session")).resolves.toEqual({ delivered: true });
    await tracker.deliver("ses_1", "new-session");
    expect(send).toHaveBeenCalledTimes(1);
  });

  test("Rules re-sent on session compaction: forgotten, sent again, tracked again", async () => {
    const gate = deferred();
    const { tracker, send, sent } = setup();
    await tracker.deliver("ses_1", "new-session");
    send.mockImplementationOnce(async (id, trigger) => {
      sent.push([id, trigger]);
      await gate.promise;
    });
    const compacting = tracker.deliver("ses_1", "compaction");
    // Removed from the tracking set while the new delivery is under way.
    expect(tracker.isDelivered("ses_1")).toBe(false);
    gate.resolve();
    await expect(compacting).resolves.toEqual({ delivered: true });
    expect(sent).toEqual([
      ["ses_1", "new-session"],
      ["ses_1", "compaction"],
    ]);
    expect(tracker.isDelivered("ses_1")).toBe(true);
  });

  test("every compaction sends again", async () => {
    const { tracker, send } = setup();
    await tracker.deliver("s", "new-session");
    await tracker.deliver("s", "compaction");
    await tracker.deliver("s", "compaction");
    await tracker.deliver("s", "new-session");
    expect(send).toHaveBeenCalledTimes(3);
  });

  test("Compaction for unknown session: rules are sent and the session is tracked", async () => {
    const { tracker, send } = setup();
    await expect(tracker.deliver("ses_unknown", "compaction")).resolves.toEqual({ delivered: true });
    expect(send).toHaveBeenCalledWith("ses_unknown", "compaction");
    expect(tracker.isDelivered("ses_unknown")).toBe(true);
    await tracker.deliver("ses_unknown", "new-session");
    expect(send).toHaveBeenCalledTimes(1);
  });

  test("Error handling during message send: onFailure with context, not tracked, the next event tries again", async () => {
    const error = new Error("500 Internal Server Error");
    const send = vi.fn(async (): Promise<void> => {
      throw error;
    });
    const { tracker, onFailure } = setup({ send, retry: { tries: 1, backoffMs: [] } });
    await expect(tracker.deliver("ses_1", "new-session")).resolves.toEqual({ delivered: false, error });
    expect(onFailure).toHaveBeenCalledTimes(1);
    expect(onFailure).toHaveBeenCalledWith("ses_1", "new-session", error, 1, true);
    expect(tracker.isDelivered("ses_1")).toBe(false);
    expect(tracker.inFlight("ses_1")).toBeUndefined();

    send.mockImplementation(async () => undefined);
    await expect(tracker.deliver("ses_1", "new-session")).resolves.toEqual({ delivered: true });
    expect(send).toHaveBeenCalledTimes(2);
    expect(tracker.isDelivered("ses_1")).toBe(true);
  });

  test("a failure never rejects out of deliver, and other sessions keep working", async () => {
    const send = vi.fn(async (id: string) => {
      if (id === "bad") throw new Error("boom");
    });
    const { tracker } = setup({ send, retry: { tries: 2, backoffMs: [5] } });
    const results = await Promise.all([tracker.deliver("bad", "new-session"), tracker.deliver("good", "new-session")]);
    expect(results.map((r) => r.delivered)).toEqual([false, true]);
    expect(tracker.isDelivered("good")).toBe(true);
    expect(tracker.isDelivered("bad")).toBe(false);
  });

  test("a failed compaction re-send leaves the session untracked", async () => {
    const { tracker, send } = setup({ retry: { tries: 1, backoffMs: [] } });
    await tracker.deliver("s", "new-session");
    send.mockRejectedValueOnce(new Error("down"));
    expect((await tracker.deliver("s", "compaction")).delivered).toBe(false);
    expect(tracker.isDelivered("s")).toBe(false);
    // The next new-session delivery (or compaction) tries again.
    await tracker.deliver("s", "new-session");
    expect(tracker.isDelivered("s")).toBe(true);
    expect(send).toHaveBeenCalledTimes(3);
  });
});

describe("concurrency and retries", () => {
  test("two new-session deliveries at once produce one send", async () => {
    const gate = deferred();
    const send = vi.fn(async () => gate.promise);
    const { tracker } = setup({ send });
    const first = tracker.deliver("s", "new-session");
    const second = tracker.deliver("s", "new-session");
    expect(tracker.inFlight("s")).toBeDefined();
    gate.resolve();
    const results = await Promise.all([first, second]);
    expect(results).toEqual([{ delivered: true }, { delivered: true }]);
    expect(send).toHaveBeenCalledTimes(1);
  });

  test("a new-session delivery joining an in-flight delivery that fails shares its failure", async () => {
    const gate = deferred();
    const send = vi.fn(async () => gate.promise);
    const { tracker } = setup({ send, retry: { tries: 1, backoffMs: [] } });
    const first = tracker.deliver("s", "new-session");
    const second = tracker.deliver("s", "new-session");
    gate.reject(new Error("nope"));
    expect((await first).delivered).toBe(false);
    expect((await second).delivered).toBe(false);
    expect(send).toHaveBeenCalledTimes(1);
  });

  test("retries are bounded to `tries`, with the backoff passed to sleep", async () => {
    const error = new Error("down");
    const send = vi.fn(async () => {
      throw error;
    });
    const { tracker, onFailure, sleep } = setup({ send, retry: { tries: 4, backoffMs: [10, 20] } });
    const result = await tracker.deliver("s", "new-session");
    expect(result).toEqual({ delivered: false, error });
    expect(send).toHaveBeenCalledTimes(4);
    // Between tries only, the last backoff repeating once the list runs out.
    expect(sleep.mock.calls).toEqual([[10], [20], [20]]);
    expect(onFailure.mock.calls).toEqual([
      ["s", "new-session", error, 1, false],
      ["s", "new-session", error, 2, false],
      ["s", "new-session", error, 3, false],
      ["s", "new-session", error, 4, true],
    ]);
    expect(tracker.isDelivered("s")).toBe(false);
  });

  test("a retry that succeeds tracks the session and stops retrying", async () => {
    const { tracker, send, sleep, onFailure } = setup({ retry: { tries: 3, backoffMs: [7] } });
    send.mockRejectedValueOnce(new Error("blip"));
    await expect(tracker.deliver("s", "new-session")).resolves.toEqual({ delivered: true });
    expect(send).toHaveBeenCalledTimes(2);
    expect(sleep.mock.calls).toEqual([[7]]);
    expect(onFailure).toHaveBeenCalledTimes(1);
    expect(tracker.isDelivered("s")).toBe(true);
  });

  test("the default policy: 3 tries, waiting 200 then 1000 ms", async () => {
    const send = vi.fn(async () => {
      throw new Error("down");
    });
    const { tracker, sleep } = setup({ send, retry: undefined });
    await tracker.deliver("s", "new-session");
    expect(DEFAULT_RETRY).toEqual({ tries: 3, backoffMs: [200, 1000] });
    expect(send).toHaveBeenCalledTimes(3);
    expect(sleep.mock.calls).toEqual([[200], [1000]]);
  });

  test("a second event during the backoff joins the retrying delivery", async () => {
    const pause = deferred();
    const sleep = vi.fn(async () => pause.promise);
    const { tracker, send } = setup({ sleep, retry: { tries: 2, backoffMs: [100] } });
    send.mockRejectedValueOnce(new Error("blip"));
    const first = tracker.deliver("s", "new-session");
    await tick();
    expect(sleep).toHaveBeenCalledTimes(1);
    const second = tracker.deliver("s", "new-session");
    pause.resolve();
    expect(await first).toEqual({ delivered: true });
    expect(await second).toEqual({ delivered: true });
    expect(send).toHaveBeenCalledTimes(2);
  });

  test("compaction while a delivery is in flight waits for it, then sends again", async () => {
    const gate = deferred();
    const order: string[] = [];
    const send = vi.fn(async (_id: string, trigger: SilentTrigger) => {
      order.push(`start ${trigger}`);
      if (trigger === "new-session") await gate.promise;
      order.push(`end ${trigger}`);
    });
    const { tracker } = setup({ send });
    const created = tracker.deliver("s", "new-session");
    await tick();
    const compacted = tracker.deliver("s", "compaction");
    await tick();
    // The compaction's send has not started while the first is still in flight.
    expect(order).toEqual(["start new-session"]);
    gate.resolve();
    await expect(compacted).resolves.toEqual({ delivered: true });
    await created;
    expect(order).toEqual(["start new-session", "end new-session", "start compaction", "end compaction"]);
    expect(tracker.isDelivered("s")).toBe(true);
    expect(tracker.inFlight("s")).toBeUndefined();
  });

  test("a new-session delivery arriving during a compaction re-send joins it", async () => {
    const gate = deferred();
    const { tracker, send } = setup();
    await tracker.deliver("s", "new-session");
    send.mockImplementationOnce(async () => gate.promise);
    const compacted = tracker.deliver("s", "compaction");
    const created = tracker.deliver("s", "new-session");
    gate.resolve();
    await Promise.all([compacted, created]);
    expect(send).toHaveBeenCalledTimes(2);
    expect(tracker.isDelivered("s")).toBe(true);
  });

  test("compaction waits even when the in-flight delivery fails, then still sends", async () => {
    const gate = deferred();
    const send = vi.fn(async (_id: string, trigger: SilentTrigger) => {
      if (trigger === "new-session") await gate.promise;
    });
    const { tracker } = setup({ send, retry: { tries: 1, backoffMs: [] } });
    const created = tracker.deliver("s", "new-session");
    const compacted = tracker.deliver("s", "compaction");
    gate.reject(new Error("first failed"));
    expect((await created).delivered).toBe(false);
    expect(await compacted).toEqual({ delivered: true });
    expect(send).toHaveBeenCalledTimes(2);
    expect(tracker.isDelivered("s")).toBe(true);
  });

  test("sessions are independent: one slow session does not hold up another", async () => {
    const gate = deferred();
    const send = vi.fn(async (id: string) => {
      if (id === "slow") await gate.promise;
    });
    const { tracker } = setup({ send });
    const slow = tracker.deliver("slow", "new-session");
    await expect(tracker.deliver("fast", "new-session")).resolves.toEqual({ delivered: true });
    expect(tracker.isDelivered("slow")).toBe(false);
    gate.resolve();
    await slow;
    expect(tracker.isDelivered("slow")).toBe(true);
  });
});
