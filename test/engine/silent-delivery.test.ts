/**
 * The silent delivery as the engine carries it out (src/engine/runner.ts over
 * the session model's steps, src/session/step-silent.ts), with a fake port:
 * one delivery under way per session, a new session's asked again joining it,
 * a compaction's following it; a failed try retried a bounded number of times
 * after its backoff, then left for the session's next event; a deleted
 * session or a stopped plugin tried no more. A session "holds" the rules when
 * its window model says so.
 */
import { describe, expect, test } from "vitest";
import { DEFAULT_RETRY } from "../../src/session/silent-delivery.js";
import { deferred, setup, setupPausedAtBackoff, tick } from "./silent-delivery-harness.js";

const failures = (logged: string[]) => logged.filter((line) => line.startsWith("error: Rules delivery"));

describe("Silent Message Rule Injection", () => {
  test("Rules sent on session creation: one send, session holds them", async () => {
    const { delivery, send } = setup();
    expect(delivery.holds("ses_1")).toBe(false);
    await delivery.created("ses_1");
    expect(send.mock.calls).toEqual([["ses_1", "new-session"]]);
    expect(delivery.holds("ses_1")).toBe(true);
    expect(delivery.underWay("ses_1")).toBe(false);
  });

  test("Rules not sent twice to same session: a repeated new-session delivery sends nothing", async () => {
    const { delivery, send } = setup();
    await delivery.created("ses_1");
    await delivery.created("ses_1");
    await delivery.created("ses_1");
    expect(send).toHaveBeenCalledTimes(1);
  });

  test("Rules re-sent on session compaction: emptied, sent again, held again", async () => {
    const gate = deferred();
    const { delivery, send, sent } = setup();
    await delivery.created("ses_1");
    send.mockImplementationOnce(async () => gate.promise);
    const compacting = delivery.compacted("ses_1");
    await tick();
    // The window holds nothing while the new delivery is under way.
    expect(delivery.holds("ses_1")).toBe(false);
    gate.resolve();
    await compacting;
    expect(sent).toEqual([
      ["ses_1", "new-session"],
      ["ses_1", "compaction"],
    ]);
    expect(delivery.holds("ses_1")).toBe(true);
  });

  test("every compaction sends again", async () => {
    const { delivery, send } = setup();
    await delivery.created("s");
    await delivery.compacted("s");
    await delivery.compacted("s");
    await delivery.created("s");
    expect(send).toHaveBeenCalledTimes(3);
  });

  test("Compaction for a session never seen created: rules are sent and held", async () => {
    const { delivery, send } = setup();
    await delivery.compacted("ses_unknown");
    expect(send).toHaveBeenCalledWith("ses_unknown", "compaction");
    expect(delivery.holds("ses_unknown")).toBe(true);
    await delivery.created("ses_unknown");
    expect(send).toHaveBeenCalledTimes(1);
  });

  test("Error handling during message send: logged with its context, not held, the next event tries again", async () => {
    const { delivery, send, logged } = setup({ retry: { tries: 1, backoffMs: [] } });
    send.mockRejectedValueOnce(new Error("500 Internal Server Error"));
    await expect(delivery.created("ses_1")).resolves.toBeUndefined();
    expect(failures(logged)).toEqual([
      "error: Rules delivery to session ses_1 on new-session failed (try 1); left for the session's next event: 500 Internal Server Error",
    ]);
    expect(delivery.holds("ses_1")).toBe(false);
    expect(delivery.underWay("ses_1")).toBe(false);

    await delivery.created("ses_1");
    expect(send).toHaveBeenCalledTimes(2);
    expect(delivery.holds("ses_1")).toBe(true);
  });

  test("a failure never rejects out of the delivery, and other sessions keep working", async () => {
    const { delivery, send } = setup({ retry: { tries: 2, backoffMs: [5] } });
    send.mockImplementation(async (id) => {
      if (id === "bad") throw new Error("boom");
    });
    await Promise.all([delivery.created("bad"), delivery.created("good")]);
    expect(delivery.holds("good")).toBe(true);
    expect(delivery.holds("bad")).toBe(false);
  });

  test("a failed compaction re-send leaves the session without its rules, until the next event", async () => {
    const { delivery, send } = setup({ retry: { tries: 1, backoffMs: [] } });
    await delivery.created("s");
    send.mockRejectedValueOnce(new Error("down"));
    await delivery.compacted("s");
    expect(delivery.holds("s")).toBe(false);
    // The next new-session delivery (or compaction) tries again.
    await delivery.created("s");
    expect(delivery.holds("s")).toBe(true);
    expect(send).toHaveBeenCalledTimes(3);
  });
});

describe("concurrency and retries", () => {
  test.each([
    ["two new-session deliveries at once produce one send, and both hold the rules", { holds: true, failed: 0 }],
    [
      "a new-session delivery joining one that fails shares its failure: one send, one failure",
      { holds: false, failed: 1 },
    ],
  ])("%s", async (_, row) => {
    const gate = deferred();
    const { delivery, send, logged } = setup({ retry: { tries: 1, backoffMs: [] } });
    send.mockImplementation(async () => gate.promise);
    const first = delivery.created("s");
    const second = delivery.created("s");
    await tick();
    expect(delivery.underWay("s")).toBe(true);
    if (row.holds) gate.resolve();
    else gate.reject(new Error("nope"));
    await Promise.all([first, second]);
    expect(send).toHaveBeenCalledTimes(1);
    expect(delivery.holds("s")).toBe(row.holds);
    expect(failures(logged)).toHaveLength(row.failed);
  });

  test("retries are bounded to `tries`, with the backoff waited between tries", async () => {
    const { delivery, send, logged, slept } = setup({ retry: { tries: 4, backoffMs: [10, 20] } });
    send.mockRejectedValue(new Error("down"));
    await delivery.created("s");
    expect(send).toHaveBeenCalledTimes(4);
    // The grace period (0 here), then between tries only, the last backoff repeating once the list runs out.
    expect(slept).toEqual([0, 10, 20, 20]);
    expect(failures(logged)).toEqual([
      "error: Rules delivery to session s on new-session failed (try 1); retrying: down",
      "error: Rules delivery to session s on new-session failed (try 2); retrying: down",
      "error: Rules delivery to session s on new-session failed (try 3); retrying: down",
      "error: Rules delivery to session s on new-session failed (try 4); left for the session's next event: down",
    ]);
    expect(delivery.holds("s")).toBe(false);
  });

  test("a retry that succeeds holds the rules and stops retrying", async () => {
    const { delivery, send, slept, logged } = setup({ retry: { tries: 3, backoffMs: [7] } });
    send.mockRejectedValueOnce(new Error("blip"));
    await delivery.created("s");
    expect(send).toHaveBeenCalledTimes(2);
    expect(slept).toEqual([0, 7]);
    expect(failures(logged)).toHaveLength(1);
    expect(delivery.holds("s")).toBe(true);
  });

  test("the default policy: 3 tries, waiting 200 then 1000 ms", async () => {
    const { delivery, send, slept } = setup();
    send.mockRejectedValue(new Error("down"));
    await delivery.created("s");
    expect(DEFAULT_RETRY).toEqual({ tries: 3, backoffMs: [200, 1000] });
    expect(send).toHaveBeenCalledTimes(3);
    expect(slept).toEqual([0, 200, 1000]);
  });

  test("a second event during the backoff joins the retrying delivery", async () => {
    const { delivery, send, slept, pause } = setupPausedAtBackoff(2);
    send.mockRejectedValueOnce(new Error("blip"));
    const first = delivery.created("s");
    await tick();
    expect(slept).toEqual([0, 100]);
    const second = delivery.created("s");
    pause.resolve();
    await Promise.all([first, second]);
    expect(send).toHaveBeenCalledTimes(2);
    expect(delivery.holds("s")).toBe(true);
  });

  test.each([
    ["compaction while a delivery is in flight waits for it, then sends again", { ended: ["end new-session"] }],
    ["compaction waits even when the delivery in flight fails, then still sends", { ended: [] }],
  ])("%s", async (_, row) => {
    const gate = deferred();
    const order: string[] = [];
    const { delivery, send } = setup({ retry: { tries: 1, backoffMs: [] } });
    send.mockImplementation(async (_id, trigger) => {
      order.push(`start ${trigger}`);
      if (trigger === "new-session") await gate.promise;
      order.push(`end ${trigger}`);
    });
    const created = delivery.created("s");
    await tick();
    const compacted = delivery.compacted("s");
    await tick();
    // The compaction's send has not started while the first is still in flight.
    expect(order).toEqual(["start new-session"]);
    if (row.ended.length > 0) gate.resolve();
    else gate.reject(new Error("first failed"));
    await Promise.all([compacted, created]);
    expect(order).toEqual(["start new-session", ...row.ended, "start compaction", "end compaction"]);
    expect(send).toHaveBeenCalledTimes(2);
    expect(delivery.holds("s")).toBe(true);
    expect(delivery.underWay("s")).toBe(false);
  });

  test("a new-session delivery arriving during a compaction re-send joins it", async () => {
    const gate = deferred();
    const { delivery, send } = setup();
    await delivery.created("s");
    send.mockImplementationOnce(async () => gate.promise);
    const compacted = delivery.compacted("s");
    await tick();
    const created = delivery.created("s");
    gate.resolve();
    await Promise.all([compacted, created]);
    expect(send).toHaveBeenCalledTimes(2);
    expect(delivery.holds("s")).toBe(true);
  });

  test("sessions are independent: one slow session does not hold up another", async () => {
    const gate = deferred();
    const { delivery, send } = setup();
    send.mockImplementation(async (id) => {
      if (id === "slow") await gate.promise;
    });
    const slow = delivery.created("slow");
    await delivery.created("fast");
    expect(delivery.holds("fast")).toBe(true);
    expect(delivery.holds("slow")).toBe(false);
    gate.resolve();
    await slow;
    expect(delivery.holds("slow")).toBe(true);
  });
});

describe("what stops the tries", () => {
  type Harness = ReturnType<typeof setupPausedAtBackoff>;
  test.each([
    ["a session deleted during a backoff is not prompted again", (h: Harness) => h.sessions.delete("s")],
    [
      "the plugin stopped during a backoff: no more tries",
      (h: Harness) => {
        h.stopped.abort();
        h.sessions.close();
      },
    ],
  ])("%s", async (_, stop) => {
    const harness = setupPausedAtBackoff(3);
    const { delivery, send, pause } = harness;
    send.mockRejectedValue(new Error("down"));
    const first = delivery.created("s");
    await tick();
    await tick();
    expect(send).toHaveBeenCalledTimes(1);
    stop(harness);
    pause.resolve();
    await first;
    expect(send).toHaveBeenCalledTimes(1);
  });
});
