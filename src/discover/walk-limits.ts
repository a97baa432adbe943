/** What bounds a walk: how deep it goes, and what one source's walks may do in all. */

/** Deep enough for any real layout; a guard against pathological trees. */
export const MAX_DEPTH = 64;

/** What one source may walk in all: far above real rule folders, far below a whole disk. */
export const WALK_LIMITS = { folders: 5_000, entries: 200_000, files: 20_000 };
export type WalkLimits = { [K in keyof typeof WALK_LIMITS]: number };

/** Warnings one source's walks report one by one; past them, one line says more were found. */
export const MAX_WALK_WARNINGS = 50;

/**
 * The work done (folders, entries, files, warnings) against its limits; once one is passed, every walk sharing the
 * budget stops.
 */
export type WalkBudget = WalkLimits & { warnings: number; exhausted: boolean; limits: WalkLimits };

export function walkBudget(limits: WalkLimits = WALK_LIMITS): WalkBudget {
  return { folders: 0, entries: 0, files: 0, warnings: 0, exhausted: false, limits };
}
