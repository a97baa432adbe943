/**
 * Reading many rule files and parsing them, the two kept apart in time: a
 * file read is parsed in the event loop's next check phase, with the others
 * read by then, not at once. Reading a file takes several trips to the
 * thread pool, each started from the main thread: parsing in between would
 * leave the pool waiting, and waking its threads again costs more than the
 * parsing (half the time on a busy machine).
 */

/** A result now, or work still to do (a rule's references to read), run with the reads' bound. */
export type Settled<R> = { value: R } | { later: () => Promise<R> };

/**
 * `read` of every item, at most `limit` at once (counting `later` work), and
 * `settle` of each item with what its read gave; results in input order. A
 * read that needs no I/O (a parse kept from an earlier load) answers at once,
 * not as a promise, and takes no slot.
 */
export function readAndSettle<T, B, R>(
  items: readonly T[],
  limit: number,
  read: (item: T) => B | Promise<B>,
  settle: (item: T, got: B) => Settled<R>,
): Promise<R[]> {
  return new Promise((resolve, reject) => {
    const results = new Array<R>(items.length);
    /** Read, waiting for the check phase. */
    const unsettled: Array<{ index: number; got: B }> = [];
    /** Settled but for their `later` work, waiting for a slot. */
    const waiting: Array<{ index: number; later: () => Promise<R> }> = [];
    let next = 0;
    let busy = 0;
    let left = items.length;
    let scheduled = false;
    let failed = false;

    const fail = (error: unknown) => {
      failed = true;
      reject(error);
    };
    const done = (index: number, result: R) => {
      results[index] = result;
      if (--left === 0) resolve(results);
    };
    const toSettle = (index: number, got: B) => {
      unsettled.push({ index, got });
      if (!scheduled) {
        scheduled = true;
        setImmediate(settleRead);
      }
    };
    const fill = () => {
      while (!failed && busy < limit && (waiting.length > 0 || next < items.length)) {
        const job = waiting.shift();
        if (job) {
          busy++;
          job.later().then((result) => {
            busy--;
            done(job.index, result);
            fill();
          }, fail);
          continue;
        }
        const index = next++;
        const reading = read(items[index] as T);
        if (!(reading instanceof Promise)) {
          toSettle(index, reading);
          continue;
        }
        busy++;
        reading.then((got) => {
          busy--;
          toSettle(index, got);
          fill();
        }, fail);
      }
    };
    const settleRead = () => {
      scheduled = false;
      try {
        for (const { index, got } of unsettled.splice(0)) {
          const settled = settle(items[index] as T, got);
          if ("value" in settled) done(index, settled.value);
          else waiting.push({ index, later: settled.later });
        }
      } catch (error) {
        fail(error);
      }
      fill();
    };

    if (left === 0) resolve(results);
    else fill();
  });
}
