/**
 * A host's call that ignores its abort signal, for the tests of issue 30
 * ("every await bounded, whoever is on the other side"): a custom `fetch`, a
 * wrapper or a test double may never answer however it is aborted, or answer
 * long after it was given up.
 */

/** A call that never settles and ignores any signal it was given. */
export function deaf<T = never>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

/** A call that ignores its signal and settles only when the test says so. */
export function answerLater<T>() {
  let answer!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    answer = resolve;
    fail = reject;
  });
  return { promise, answer, fail };
}

/** Whether `promise` has settled once the work queued now has run (microtasks and already-due callbacks; fake timers are not moved). */
export async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 20; i++) await Promise.resolve();
  return settled;
}

/** Log lines as `level: message`, with the logger that writes them. */
export function collectedLog() {
  const lines: string[] = [];
  const write = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  const log = {
    debugEnabled: true,
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    flush: async () => undefined,
  };
  return { lines, log };
}

/** `promise`'s value, or a failure naming `what` once `capMs` of real time have passed: a cap far above the bound under test, so only a hang fails. */
export async function settled<T>(what: string, promise: Promise<T>, capMs = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cap = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle within ${capMs} ms`)), capMs)),
  );
  try {
    return await Promise.race([promise, cap]);
  } finally {
    clearTimeout(timer);
  }
}
