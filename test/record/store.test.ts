/**
 * The record's writer (record/store.ts): events are queued off the hot path,
 * written in batches, in order, once each; a record that cannot be written is
 * said once, fails nothing, and is written when it can be again.
 */
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { RecordEvent } from "../../src/record/event.js";
import { recordFiles } from "../../src/record/location.js";
import { type RecordWriterOptions, recordWriter } from "../../src/record/store.js";
import { answerLater, collectedLog, deaf, settled } from "../support/deaf-host.js";
import { countLine, RECORD_PROJECT } from "../support/record-events.js";
import { tempDirs } from "../support/temp-folder.js";

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const PROJECT = RECORD_PROJECT;
const event = countLine;

/** A writer into a fresh folder, a timer far off unless asked: only what a test does writes. */
async function setUp(options: Partial<RecordWriterOptions> = {}) {
  const folder = options.folder ?? join(await dirs.make("rulebook-record-"), "state", "rulebook");
  const { lines, log } = collectedLog();
  const writer = recordWriter({ folder, projectRoot: PROJECT, log, flushMs: 60_000, ...options });
  const { current } = recordFiles(folder, PROJECT);
  /** The calls written, in file order; none when there is no file. */
  const calls = async () =>
    existsSync(current)
      ? (await readFile(current, "utf8"))
          .split("\n")
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as RecordEvent).call)
      : [];
  const warnings = () => lines.filter((line) => line.startsWith("warn: "));
  return { folder, current, writer, lines, warnings, calls };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Timers that keep the process alive (an unref'd one is not counted). */
const refTimers = () => process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;

describe("record writer: queued, then written in batches", () => {
  test("add() touches no disk; flush() writes each event as one JSON line, in order", async () => {
    const { writer, current, calls } = await setUp({ batchSize: 1 });
    writer.add(event(1));
    // Even a full batch only schedules its write: nothing is on disk when add() returns.
    expect(existsSync(current)).toBe(false);
    writer.add(event(2));
    writer.add(event(3));
    await writer.flush();
    const text = await readFile(current, "utf8");
    expect(text.split("\n")).toEqual([...[1, 2, 3].map((n) => JSON.stringify(event(n))), ""]);
    expect(await calls()).toEqual([1, 2, 3]);
  });

  test("the timer writes on its own, and does not keep the process alive", async () => {
    const { writer, calls } = await setUp({ flushMs: 20 });
    const before = refTimers();
    writer.add(event(1));
    writer.add(event(2));
    expect(refTimers()).toBe(before);
    // The count can fail: a timer that is not unref'd is counted.
    const control = setTimeout(() => undefined, 60_000);
    expect(refTimers()).toBe(before + 1);
    clearTimeout(control);
    await vi.waitFor(async () => expect(await calls()).toEqual([1, 2]), { timeout: 2000, interval: 10 });
  });

  test("a full batch is written without waiting for the timer", async () => {
    const { writer, calls } = await setUp({ batchSize: 4 });
    for (const n of range(1, 3)) writer.add(event(n));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await calls()).toEqual([]);
    writer.add(event(4));
    await vi.waitFor(async () => expect(await calls()).toEqual([1, 2, 3, 4]), { timeout: 2000, interval: 10 });
  });

  test("flush() calls at once neither interleave nor repeat lines", async () => {
    const { writer, calls } = await setUp();
    const flushes: Promise<void>[] = [];
    for (const n of range(1, 200)) {
      writer.add(event(n));
      if (n % 7 === 0) flushes.push(writer.flush());
    }
    flushes.push(writer.flush(), writer.flush());
    await Promise.all(flushes);
    expect(await calls()).toEqual(range(1, 200));
  });

  test("close() writes what is queued; events added after it are not written", async () => {
    const { writer, calls, warnings } = await setUp();
    writer.add(event(1));
    writer.add(event(2));
    await writer.close();
    expect(await calls()).toEqual([1, 2]);
    writer.add(event(3));
    await writer.flush();
    await writer.close();
    expect(await calls()).toEqual([1, 2]);
    expect(warnings()).toEqual([]);
  });

  test("close() gives up on a disk that does not answer, saying how many events were not written", async () => {
    const { writer, warnings } = await setUp({ append: () => deaf(), closeWaitMs: 50 });
    for (const n of range(1, 3)) writer.add(event(n));
    await settled("close", writer.close(), 2000);
    expect(warnings()).toEqual([expect.stringMatching(/3 events were not written.*did not answer within 50 ms/)]);
  });

  test("a disk slower than the events keeps the newest maxQueued, and says how many it left out", async () => {
    const written: number[][] = [];
    const writes: ReturnType<typeof answerLater<void>>[] = [];
    const append: RecordWriterOptions["append"] = async (_place, lines) => {
      const write = answerLater<void>();
      writes.push(write);
      await write.promise;
      written.push(lines.map((line) => (JSON.parse(line) as RecordEvent).call!));
      return { written: lines.length };
    };
    const { writer, warnings } = await setUp({ append, batchSize: 1, maxQueued: 2 });
    writer.add(event(1));
    await vi.waitFor(() => expect(writes).toHaveLength(1));
    for (const n of range(2, 5)) writer.add(event(n));
    expect(warnings()).toEqual([expect.stringContaining("keeps at most 2 events")]);
    writes[0]!.answer();
    await vi.waitFor(() => expect(writes).toHaveLength(2));
    writes[1]!.answer();
    await writer.flush();
    expect(written).toEqual([[1], [4, 5]]);
    expect(warnings()).toEqual([
      expect.stringContaining("keeps at most 2 events"),
      expect.stringMatching(/left out 2 events/),
    ]);
  });

  test("an event that is not JSON is left out; the others are written", async () => {
    const { writer, calls } = await setUp();
    writer.add(event(1));
    expect(() => writer.add({ ...event(2), line: 10n as unknown as number })).not.toThrow();
    writer.add(event(3));
    await writer.flush();
    expect(await calls()).toEqual([1, 3]);
  });
});

describe("record writer: a record that cannot be written", () => {
  /** A regular file where the folder should be: unwritable even for root. */
  async function blocked(options: Partial<RecordWriterOptions> = {}) {
    const folder = join(await dirs.make("rulebook-record-"), "rulebook");
    await writeFile(folder, "not a folder");
    return { ...(await setUp({ folder, ...options })), unblock: () => rm(folder) };
  }

  test("is said once across many tries; nothing throws; written once it can be, said once", async () => {
    const { writer, folder, warnings, lines, calls, unblock } = await blocked();
    for (const n of range(1, 10)) {
      expect(() => writer.add(event(n))).not.toThrow();
      await expect(writer.flush()).resolves.toBeUndefined();
    }
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain(folder);
    expect(warnings()[0]).toMatch(/E(EXIST|NOTDIR)/);
    expect(warnings()[0]).toContain("the rules work as before; the record is not written until it can be");
    expect(lines.filter((line) => line.startsWith("info: "))).toEqual([]);

    await unblock();
    writer.add(event(11));
    await writer.flush();
    await writer.flush();
    expect(await calls()).toEqual(range(1, 11));
    expect(lines.filter((line) => line.startsWith("info: "))).toEqual([expect.stringMatching(/written to .* again$/)]);
    expect(warnings()).toHaveLength(1);
  });

  test("the timer keeps trying without new events, and a failure after a recovery is said again", async () => {
    const { writer, warnings, calls, unblock, folder } = await blocked({ flushMs: 10 });
    writer.add(event(1));
    await vi.waitFor(() => expect(warnings()).toHaveLength(1), { timeout: 2000, interval: 5 });
    await unblock();
    await vi.waitFor(async () => expect(await calls()).toEqual([1]), { timeout: 2000, interval: 10 });
    await rm(folder, { recursive: true });
    await writeFile(folder, "blocked again");
    writer.add(event(2));
    await vi.waitFor(() => expect(warnings()).toHaveLength(2), { timeout: 2000, interval: 5 });
    await writer.close();
  });

  test("keeps the newest maxQueued events and says once how many were dropped", async () => {
    const { writer, lines, calls, unblock } = await blocked({ maxQueued: 5 });
    for (const n of range(1, 8)) writer.add(event(n));
    await writer.flush();
    await writer.flush();
    await unblock();
    await writer.flush();
    expect(await calls()).toEqual(range(4, 8));
    expect(lines.filter((line) => /\b3 events\b/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => line.includes("dropped"))).toHaveLength(2); // the dropping begins; how many
    await writer.close();
    expect(lines.filter((line) => /\b3 events\b/.test(line))).toHaveLength(1);
  });

  test("close() never rejects, and says how many events were left unwritten and why", async () => {
    const { writer, warnings, folder } = await blocked({ maxQueued: 2 });
    for (const n of range(1, 4)) writer.add(event(n));
    await expect(writer.close()).resolves.toBeUndefined();
    expect(warnings().at(-1)).toMatch(/2 events were not written \(and 2 were dropped before\)/);
    expect(warnings().at(-1)).toContain(folder);
  });

  test("a disk call that throws is a failure like any other", async () => {
    let tries = 0;
    const append = async () => {
      tries++;
      throw new Error("EIO: i/o error");
    };
    const { writer, warnings } = await setUp({ append });
    writer.add(event(1));
    await writer.flush();
    await writer.flush();
    expect(tries).toBe(2);
    expect(warnings()).toEqual([expect.stringContaining("EIO: i/o error")]);
  });
});
