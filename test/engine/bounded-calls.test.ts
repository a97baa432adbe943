/**
 * Issue 30, "every await bounded": a host call ends by its deadline whether
 * or not the callee honours its abort, and whatever it answers after is
 * dropped and said in the log, a late failure included (never an unhandled
 * rejection). Fake timers: what is asserted is that the call has settled,
 * and with what, not how long it took.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { boundedCalls, byDeadline, outcomeUnknown, withTimeout } from "../../src/engine/timing.js";
import { answerLater, collectedLog, deaf, hasSettled } from "../support/deaf-host.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("boundedCalls: every call ends by its deadline", () => {
  test("a callee that ignores its signal and never answers: given up at the deadline, the outcome unknown, the callee told", async () => {
    const { log, lines } = collectedLog();
    const within = boundedCalls(new AbortController().signal, log);
    let seen: AbortSignal | undefined;
    const call = within("The host's answer to a history read", 100, (signal) => {
      seen = signal;
      return deaf();
    });
    const outcome = call.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(99);
    expect(await hasSettled(call)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(outcomeUnknown(error)).toBe(true);
    expect((error as Error).message).toBe("no answer in 100 ms");
    expect(seen?.aborted).toBe(true);
    expect(lines).toEqual([]);
  });

  test("an answer after the deadline is dropped: the caller keeps its timeout, the log says what came late", async () => {
    const { log, lines } = collectedLog();
    const within = boundedCalls(new AbortController().signal, log);
    const late = answerLater<{ created: number }>();
    const call = within("The host's answer to the rules prompt for session ses_a", 100, () => late.promise);
    const outcome = call.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(100);
    expect(outcomeUnknown(await outcome)).toBe(true);
    await vi.advanceTimersByTimeAsync(250);
    late.answer({ created: 5 });
    await vi.advanceTimersByTimeAsync(0);
    expect(lines).toEqual([
      "info: The host's answer to the rules prompt for session ses_a came 250 ms after it was given up; the answer was dropped",
    ]);
  });

  test("a failure after the deadline is dropped and logged, never unhandled; failing with the abort it was given is not news", async () => {
    const { log, lines } = collectedLog();
    const within = boundedCalls(new AbortController().signal, log);
    const late = answerLater<never>();
    const failing = within("The host's answer to a history read of session ses_b", 50, () => late.promise).catch(
      () => "given up",
    );
    let honouring: Promise<unknown> = Promise.resolve();
    const polite = within("The host's answer to a history read of session ses_c", 50, (signal) => {
      honouring = new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      return honouring;
    });
    const politeOutcome = polite.catch(() => "given up");
    await vi.advanceTimersByTimeAsync(50);
    expect([await failing, await politeOutcome]).toEqual(["given up", "given up"]);
    await vi.advanceTimersByTimeAsync(10);
    late.fail(new TypeError("fetch failed"));
    await vi.advanceTimersByTimeAsync(0);
    expect(lines).toEqual([
      "info: The host's answer to a history read of session ses_b failed 10 ms after it was given up (fetch failed); the failure was dropped",
    ]);
  });

  test("the plugin stopping gives every call up at once, whatever its deadline", async () => {
    const { log } = collectedLog();
    const stopped = new AbortController();
    const within = boundedCalls(stopped.signal, log);
    const call = within("a call", 60_000, () => deaf()).catch((error: unknown) => error);
    stopped.abort();
    expect(await hasSettled(call)).toBe(true);
    expect(((await call) as Error).name).toBe("AbortError");
    // Already stopped: no call is made.
    const made = vi.fn(() => deaf());
    const after = within("a call", 60_000, made).catch((error: unknown) => error);
    expect(await hasSettled(after)).toBe(true);
    expect(made).not.toHaveBeenCalled();
  });

  test("a call that answers in time is the caller's, and no timer is left behind", async () => {
    const { log, lines } = collectedLog();
    const within = boundedCalls(new AbortController().signal, log);
    await expect(within("a call", 100, async () => 42)).resolves.toBe(42);
    await expect(within("a call", 100, async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(vi.getTimerCount()).toBe(0);
    expect(lines).toEqual([]);
  });
});

describe("withTimeout and byDeadline: the same bound for a promise already under way", () => {
  test("withTimeout answers undefined at the deadline; a late answer is dropped, logged when asked", async () => {
    const { log, lines } = collectedLog();
    const late = answerLater<string>();
    const waited = withTimeout(late.promise, 1000, { log, what: "OpenCode's info on session ses_a" });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await waited).toBeUndefined();
    late.answer("info");
    await vi.advanceTimersByTimeAsync(0);
    expect(lines).toEqual([
      "info: OpenCode's info on session ses_a came 0 ms after it was given up; the answer was dropped",
    ]);
  });

  test("byDeadline hands a late value to `drop` (a registration made after all is undone)", async () => {
    const { log } = collectedLog();
    const late = answerLater<{ dispose(): void }>();
    const drop = vi.fn();
    const waited = byDeadline(late.promise, 500, { late: { log, what: "a registration", drop } }).catch(
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(500);
    expect(outcomeUnknown(await waited)).toBe(true);
    const registration = { dispose: () => undefined };
    late.answer(registration);
    await vi.advanceTimersByTimeAsync(0);
    expect(drop).toHaveBeenCalledWith(registration);
  });

  test("byDeadline without a time limit ends when its signal aborts", async () => {
    const stop = new AbortController();
    const waited = byDeadline(deaf(), undefined, { stopped: stop.signal }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(await hasSettled(waited)).toBe(false);
    stop.abort();
    expect(outcomeUnknown(await waited)).toBe(true);
  });
});
