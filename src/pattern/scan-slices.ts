/**
 * Scanning in slices: the same steps as `scanWithin`, but the scan lets
 * other work run (the host's event loop) every `sliceMs`, so a scan that
 * takes its whole deadline never holds the loop for longer than a slice and
 * one step. A scanner's sets can be compiled ahead, in slices too, so the
 * first checked call does not pay for them. Pure but for the clock and the
 * pause the caller hands in.
 */
import { type ScanBudget, type ScanCore, type ScanPlace, type ScanResult, scanResult, scanSteps } from "./pattern-scan.js";

/** A step's kinds of window: no edge cut, the start, the end, both (pattern-scan.ts's cuts). */
const CUTS = [0, 1, 2, 3] as const;

/** How a sliced scan shares the loop: it runs at most `sliceMs` at a time, then awaits `pause()` (e.g. `setImmediate`). */
export interface Slicing {
  now(): number;
  readonly sliceMs: number;
  pause(): Promise<void>;
}

/** A scan to the deadline that pauses between slices; past the deadline, after a pause too, it stops incomplete. */
export async function scanInSlices(core: ScanCore, units: readonly string[], budget: ScanBudget & Slicing): Promise<ScanResult> {
  const found = new Set<number>();
  const place: ScanPlace = { group: 0 };
  let sliceEnd = budget.now() + budget.sliceMs;
  for (const _ of scanSteps(core, units, found, place)) {
    let now = budget.now();
    if (now > sliceEnd) {
      await budget.pause();
      now = budget.now();
      sliceEnd = now + budget.sliceMs;
    }
    if (now > budget.deadline) return scanResult(core, found, units.length, place, false);
  }
  return scanResult(core, found, units.length, place, true);
}

/** Builds every set the core may use (one per group and kind of window), in slices; `stop()` true ends it early. */
export async function prepareSets(core: ScanCore, slicing: Slicing, stop: () => boolean = () => false): Promise<void> {
  let sliceEnd = slicing.now() + slicing.sliceMs;
  // Whole-unit sets first: most units are lines shorter than a window.
  for (const cut of CUTS) {
    for (const group of core.groups) {
      if (stop()) return;
      if (slicing.now() > sliceEnd) {
        await slicing.pause();
        sliceEnd = slicing.now() + slicing.sliceMs;
      }
      core.setFor(group, cut);
    }
  }
}
