/**
 * A list of names outside rule blocks (rules left out, files deleted) fitted
 * to a byte budget: every name if they fit, else the first names that fit and
 * a count of the rest. A list is its frame (message.ts `ListFrame`) and its
 * names joined, so each size tried is a sum: names are sized once each, only
 * as far as a try reaches, and only the list kept is rendered.
 */
import { framedList, NAME_SEPARATOR, type FrameOf } from "./message.js";

const SEPARATOR_BYTES = Buffer.byteLength(NAME_SEPARATOR, "utf8");

export interface NameList {
  readonly count: number;
  /** The list's size naming its first `k` names and counting the rest; once past `cap`, only some size past it. */
  bytes(k: number, cap?: number): number;
  /** The most the list takes: all its names, or the wording with none plus `allowance` bytes of names. */
  reserve(allowance: number): number;
  /**
   * The list within `limit` bytes: every name if they fit, else the first
   * that fit (at most `maxNamed`) and a count of the rest. At worst (a budget
   * too small for any name) the count alone.
   */
  fit(limit: number, maxNamed: number): string;
}

/** `nameAt(i)`, for `i` < `count`, is the `i`-th name as the list shows it. */
export function nameList(count: number, nameAt: (i: number) => string, frame: FrameOf): NameList {
  const names: string[] = [];
  /** `joined[k]`: the bytes of the first `k` names joined. */
  const joined = [0];
  const name = (i: number): string => {
    names[i] ??= nameAt(i);
    return names[i];
  };
  const render = (k: number): string =>
    framedList(
      frame(k, count - k),
      Array.from({ length: k }, (_, i) => name(i)),
    );
  const bytes = (k: number, cap = Infinity): number => {
    const { before, after } = frame(k, count - k);
    const fixed = byteLength(before) + byteLength(after);
    // The joined sizes only grow: once past what is left of `cap`, the rest need not be known.
    while (joined.length <= k && (joined[joined.length - 1] as number) <= cap - fixed) {
      const i = joined.length - 1;
      joined.push((joined[i] as number) + byteLength(name(i)) + (i > 0 ? SEPARATOR_BYTES : 0));
    }
    return fixed + (joined[Math.min(k, joined.length - 1)] as number);
  };
  return {
    count,
    bytes,
    reserve(allowance) {
      const cap = bytes(0) + allowance;
      return Math.min(bytes(count, cap), cap);
    },
    fit(limit, maxNamed) {
      if (bytes(count, limit) <= limit) return render(count);
      return render(longestPrefix(Math.min(count - 1, maxNamed), (k) => bytes(k, limit) <= limit));
    },
  };
}

/** The largest `k` ≤ `n` with `fits(k)`, trying `n` first and then counting up from 0 until one does not fit (0 if none does). */
export function longestPrefix(n: number, fits: (k: number) => boolean): number {
  if (fits(n)) return n;
  let k = 0;
  while (k + 1 < n && fits(k + 1)) k++;
  return k;
}

export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
