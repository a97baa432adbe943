/**
 * A wait with a bound, for work on a disk that may hang (a network mount):
 * the work's value, or undefined once `ms` have passed; the work's own
 * failure is passed on. The timer never keeps the process alive.
 */
export function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
