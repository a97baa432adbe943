/**
 * The record's writer (docs/record.md): events are queued where they happen
 * and written in batches off the hot path, by a timer or when a batch is full,
 * one write at a time and in order (store-file.ts does the disk). A record
 * that cannot be written never fails anything: it is said once in the log,
 * its events wait (at most `maxQueued`, the oldest dropped past it) for the
 * next try, and a return to writing is said once too.
 */
import type { Logger } from "../log.js";
import type { RecordEvent } from "./event.js";
import { recordFiles } from "./location.js";
import { type AppendRecordLines, appendRecordLines, type RecordProblem } from "./store-file.js";

/** A record file is rotated before it would pass this; a project keeps two (current and rotated). */
export const MAX_RECORD_FILE_BYTES = 16 * 1024 * 1024;
const FLUSH_MS = 1000;
/** Events that start a write before the timer: a tool call's record costs a push, a write a few file operations. */
const BATCH_SIZE = 2048;
const MAX_QUEUED = 10_000;
const CLOSE_WAIT_MS = 2000;

export interface RecordSink {
  /** Queues an event; never waits for the disk, never throws. */
  add(event: RecordEvent): void;
  /** Writes what is queued; resolves when it is written or could not be; never rejects. */
  flush(): Promise<void>;
  /** Writes what is queued and stops (bounded): events added later are dropped. Never rejects. */
  close(): Promise<void>;
}

export interface RecordWriterOptions {
  /** `recordFolder(env, home)`. */
  folder: string;
  /** The project whose file it is (`recordFiles(folder, projectRoot)`). */
  projectRoot: string;
  log: Logger;
  maxFileBytes?: number;
  /** How long an event waits for its batch's write, at most (when the disk answers). */
  flushMs?: number;
  /** Queued events that start a write at once. */
  batchSize?: number;
  /** Events kept while the record cannot be written; the oldest are dropped past it. */
  maxQueued?: number;
  /** How long `close` waits for the last write. */
  closeWaitMs?: number;
  /** The disk; replaced by tests (a write that never ends). */
  append?: AppendRecordLines;
}

export function recordWriter(options: RecordWriterOptions): RecordSink {
  const { log } = options;
  const place = { folder: options.folder, ...recordFiles(options.folder, options.projectRoot) };
  const maxFileBytes = options.maxFileBytes ?? MAX_RECORD_FILE_BYTES;
  const flushMs = options.flushMs ?? FLUSH_MS;
  const batchSize = Math.max(1, options.batchSize ?? BATCH_SIZE);
  const maxQueued = Math.max(1, options.maxQueued ?? MAX_QUEUED);
  const closeWaitMs = options.closeWaitMs ?? CLOSE_WAIT_MS;
  const append = options.append ?? appendRecordLines;

  /**
   * Events not yet handed to a write, oldest first: as they came (made lines only when written, off the tool call's
   * path), or as lines, given back by a write that failed.
   */
  const queue: Array<RecordEvent | string> = [];
  let chain: Promise<void> = Promise.resolve();
  /** Writes queued on the chain or under way; a timer or a full batch adds one only when there is none. */
  let links = 0;
  /** Lines handed to the write under way. */
  let inFlight = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Why the last write failed, while it keeps failing: said once when it begins. */
  let failing: RecordProblem | undefined;
  let dropped = 0;
  let closed = false;
  /** Once close has said what was left, the writer says nothing more. */
  let finished = false;
  let closing: Promise<void> | undefined;

  const keepBound = () => {
    if (queue.length <= maxQueued) return;
    // An eighth of the bound more goes at once: one splice for many adds, not one at each (a copy of the whole queue).
    const over = Math.min(queue.length, queue.length - maxQueued + Math.floor(maxQueued / 8));
    queue.splice(0, over);
    if (dropped === 0 && !finished) {
      log.warn(
        `The rules record keeps at most ${maxQueued} events waiting to be written to ${place.current}; the oldest are dropped until it is written`,
      );
    }
    dropped += over;
  };

  const arm = () => {
    if (timer || closed) return;
    // Unref'd: a batch waiting for its timer never keeps the host's process alive.
    timer = setTimeout(() => {
      timer = undefined;
      if (links === 0 && queue.length > 0) void flush();
    }, flushMs);
    timer.unref?.();
  };

  const failed = (problem: RecordProblem) => {
    if (!failing && !finished) {
      log.warn(
        `The rules record cannot be written to ${problem.path}: ${problem.what}; the rules work as before; the record is not written until it can be`,
      );
    }
    failing = problem;
  };

  const wrote = () => {
    if (!finished && failing) log.info(`The rules record is written to ${place.current} again${droppedNote()}`);
    else if (!finished && dropped > 0) {
      log.warn(`The rules record ${place.current} left out ${dropped} events: more waited than the disk took in time`);
    }
    failing = undefined;
    dropped = 0;
  };

  const droppedNote = () => (dropped > 0 ? `; ${dropped} events were dropped while it could not be` : "");

  const writeQueued = async () => {
    if (queue.length === 0) return;
    const batch = linesOf(queue.splice(0));
    if (batch.length === 0) return;
    inFlight = batch.length;
    const { written, problem } = await append(place, batch, maxFileBytes).catch(
      (error: unknown): { written: number; problem: RecordProblem } => ({
        written: 0,
        problem: { path: place.current, what: (error as Error)?.message ?? String(error) },
      }),
    );
    inFlight = 0;
    if (!problem) return wrote();
    if (finished) return;
    // Back in front of what came since, in order, for the next try.
    queue.unshift(...batch.slice(written));
    keepBound();
    failed(problem);
  };

  const afterWrite = () => {
    links--;
    if (closed || queue.length === 0) return;
    // A full batch starts a write at once, but not while writing fails: the timer paces the tries then.
    if (links === 0 && !failing && queue.length >= batchSize) void flush();
    else arm();
  };

  const flush = (): Promise<void> => {
    links++;
    chain = chain
      .then(writeQueued)
      .catch(() => undefined)
      .finally(afterWrite);
    return chain;
  };

  const close = async () => {
    closed = true;
    clearTimeout(timer);
    timer = undefined;
    let waitTimer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<true>((resolve) => {
      waitTimer = setTimeout(() => resolve(true), closeWaitMs);
      waitTimer.unref?.();
    });
    const timedOut = await Promise.race([flush().then(() => false), late]);
    clearTimeout(waitTimer);
    const left = queue.length + inFlight;
    queue.length = 0;
    finished = true;
    if (left === 0 && dropped === 0) return;
    const why = timedOut
      ? `the disk did not answer within ${closeWaitMs} ms`
      : failing
        ? `${failing.path}: ${failing.what}`
        : "";
    const before = dropped > 0 ? ` (and ${dropped} were dropped before)` : "";
    if (left > 0) log.warn(`The rules record ${place.current}: ${left} events were not written${before}: ${why}`);
    else log.warn(`The rules record ${place.current} left out ${dropped} events: more waited than the disk took`);
  };

  /** The batch as lines; an event that cannot be written as JSON is left out, and the others go on. */
  const linesOf = (items: ReadonlyArray<RecordEvent | string>): string[] =>
    items.flatMap((item) => {
      if (typeof item === "string") return [item];
      try {
        return [`${JSON.stringify(item)}\n`];
      } catch (error) {
        log.debug(`A rules record event was left out: ${(error as Error)?.message ?? String(error)}`);
        return [];
      }
    });

  return {
    add(event) {
      if (closed) return;
      // Kept as it is (a new object no one changes): made a line when written, not in the call that records it.
      queue.push(event);
      keepBound();
      if (links === 0 && !failing && queue.length >= batchSize) void flush();
      else arm();
    },
    flush: () => flush().catch(() => undefined),
    close() {
      closing ??= close().catch(() => undefined);
      return closing;
    },
  };
}
