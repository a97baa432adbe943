/**
 * The bound on applying one file's edits (applied-edits.ts, applied-hunks.ts):
 * what each step scans, copies or compares is spent from it before the step
 * is taken, and a step it cannot pay for is not taken. Pure.
 */

/** What is left of the bound. */
export interface Work {
  left: number;
}

export function spend(work: Work, cost: number): boolean {
  if (cost > work.left) return false;
  work.left -= cost;
  return true;
}
