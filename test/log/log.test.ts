import { describe, expect, test, vi } from "vitest";
import { openCodeLogSink } from "../../src/hosts/opencode-1/log-sink.js";
import { createLogger, SERVICE } from "../../src/log.js";

const recordingSink = () => {
  const lines: Array<[string, string, unknown]> = [];
  const sink = vi.fn(async (level: string, message: string, extra?: unknown) => {
    lines.push([level, message, extra]);
  });
  return { lines, sink };
};

describe("createLogger", () => {
  test("debug lines only when debug is on", async () => {
    const off = recordingSink();
    const quiet = createLogger(off.sink, false);
    quiet.debug("Discovered global rule: global-rule.md");
    await quiet.flush();
    expect(off.lines).toEqual([]);
    expect(quiet.debugEnabled).toBe(false);

    const on = recordingSink();
    const loud = createLogger(on.sink, true);
    loud.debug("Discovered global rule: global-rule.md", { path: "/x" });
    await loud.flush();
    expect(on.lines).toEqual([["debug", "Discovered global rule: global-rule.md", { path: "/x" }]]);
    expect(loud.debugEnabled).toBe(true);
  });

  test("info, warn and error are written whether debug is on or not", async () => {
    const { lines, sink } = recordingSink();
    const log = createLogger(sink, false);
    log.info("i");
    log.warn("w", { a: 1 });
    log.error("e");
    await log.flush();
    expect(lines).toEqual([
      ["info", "i", undefined],
      ["warn", "w", { a: 1 }],
      ["error", "e", undefined],
    ]);
  });

  test("a sink that rejects never throws out, and the logger keeps working", async () => {
    let calls = 0;
    const log = createLogger(async () => {
      calls++;
      if (calls === 1) throw new Error("log endpoint down");
    }, true);
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      expect(() => log.warn("first")).not.toThrow();
      await expect(log.flush()).resolves.toBeUndefined();
      log.error("second");
      await log.flush();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(calls).toBe(2);
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });

  test("a sink that throws synchronously (e.g. client.app missing) does not throw out of warn()", async () => {
    // src/log.ts says "Logging never throws", but write() calls sink() outside any try.
    const log = createLogger(() => {
      throw new TypeError("Cannot read properties of undefined (reading 'log')");
    }, true);
    expect(() => log.warn("w")).not.toThrow();
    expect(() => log.debug("d")).not.toThrow();
    await expect(log.flush()).resolves.toBeUndefined();
  });

  test("flush waits for every line sent so far", async () => {
    const releases: Array<() => void> = [];
    const done: string[] = [];
    const log = createLogger(
      (_level, message) =>
        new Promise<void>((resolve) => {
          releases.push(() => {
            done.push(message);
            resolve();
          });
        }),
      true,
    );
    log.warn("a");
    log.debug("b");
    let flushed = false;
    const flushing = log.flush().then(() => {
      flushed = true;
    });
    await Promise.resolve();
    expect(flushed).toBe(false);
    releases[0]?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(flushed).toBe(false);
    releases[1]?.();
    await flushing;
    expect(done).toEqual(["a", "b"]);
  });

  test("flush with nothing pending resolves at once", async () => {
    await expect(createLogger(async () => undefined, false).flush()).resolves.toBeUndefined();
  });
});

describe("openCodeLogSink", () => {
  test("writes through client.app.log with service opencode-rulebook", async () => {
    const log = vi.fn(async () => ({}));
    const sink = openCodeLogSink({ app: { log } } as never);
    await sink("warn", "bad rule", { path: "/p" });
    await sink("debug", "plain");
    expect(SERVICE).toBe("opencode-rulebook");
    expect(log.mock.calls).toEqual([
      [{ body: { service: "opencode-rulebook", level: "warn", message: "bad rule", extra: { path: "/p" } } }],
      [{ body: { service: "opencode-rulebook", level: "debug", message: "plain" } }],
    ]);
  });
});
