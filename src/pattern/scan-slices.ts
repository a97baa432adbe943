/**
 * Scanning in slices: the same steps as `scanWithin`, but the scan lets
 * other work run (the host's event loop) every `sliceMs`, so a scan that
 * takes its whole deadline never holds the loop for longer than a slice and
 * one step. A scanner's sets can be compiled ahead, in slices too, so the
 * first checked call does not pay for them. Pure but for the clock and the
 * pause the caller hands in.
 */
import { runSteps, type ScanBudget, type ScanCore, type ScanResult, scanResult, scanStart } from "./pattern-scan.js";

/**
 * How a sliced scan shares the loop: it runs at most `sliceMs` at a time, then awaits `pause()` (e.g. `setImmediate`).
 */
export interface Slicing {
  now(): number;
  readonly sliceMs: number;
  pause(): Promise<void>;
}

/** A scan to the deadline that pauses between slices; past the deadline, after a pause too, it stops incomplete. */
export async function scanInSlices(
  core: ScanCore,
  units: readonly string[],
  budget: ScanBudget & Slicing,
): Promise<ScanResult> {
  const found = new Set<number>();
  const place = scanStart();
  for (;;) {
    const sliceEnd = budget.now() + budget.sliceMs;
    let expired = false;
    let stepped = false;
    // Each slice runs a step at least, so a scan whose slices are shorter than a step still ends.
    const done = runSteps(core, units, found, place, () => {
      const now = budget.now();
      expired = now > budget.deadline;
      if (expired || (stepped && now > sliceEnd)) return true;
      stepped = true;
      return false;
    });
    if (done || expired) return scanResult(core, found, units.length, place, done);
    await budget.pause();
  }
}

/**
 * Builds the sets a line shorter than a window is scanned with (one per
 * group: most units are such lines), in slices; `stop()` true ends it early.
 * The sets for windows of longer lines are built when first needed.
 */
export async function prepareSets(core: ScanCore, slicing: Slicing, stop: () => boolean = () => false): Promise<void> {
  let sliceEnd = slicing.now() + slicing.sliceMs;
  for (const group of core.groups) {
    if (stop()) return;
    if (slicing.now() > sliceEnd) {
      await slicing.pause();
      sliceEnd = slicing.now() + slicing.sliceMs;
    }
    core.setFor(group, 0);
  }
}
