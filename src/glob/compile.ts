/**
 * A glob matcher that cannot backtrack. Globs come from rule files in
 * repositories nobody vetted, so a regular expression built from one can be
 * made to take minutes (`a*a*a*…b` against a long name). Here:
 *
 * 1. braces (`{a,b}`, `{1..5}`, `{a..e}`) and the extglobs `@(a|b)` and
 *    `?(a|b)` are expanded into at most MAX_ALTERNATIVES plain globs;
 * 2. each plain glob is split into `/` segments; a whole `**` segment matches
 *    zero or more path segments, any other segment exactly one;
 * 3. both levels use the greedy wildcard algorithm that remembers only the
 *    last star: a segment against path segments, a token (`*`, `?`, a class,
 *    a character) against characters. It never recurses and costs at most
 *    O(path length × glob length) per alternative. A segment with a class
 *    that also matches its own text (`[id]`: `i`, `d` or `[id]`, as
 *    micromatch reads it) is matched by keeping every place its tokens can
 *    be at instead, at the same bound.
 *
 * Compiling never throws: a glob that cannot be used comes back with the reason.
 *
 * This module is the matcher's API; the steps live in expand.ts (1),
 * pattern.ts (2), match.ts (3) and char-class.ts (escapes and character
 * classes).
 */
import { expandGlob } from "./expand.js";
import { matchPathPattern } from "./match.js";
import { compilePathPattern, starBeforeTrailingGlobstar, type PathPattern, type StepCounter } from "./pattern.js";

type CompiledGlob =
  | {
      ok: true;
      match(path: string, counter?: StepCounter): boolean;
      /** The plain globs it stands for, compiled: index-by-part.ts reads what they fix. */
      patterns: readonly PathPattern[];
    }
  | { ok: false; problem: string };

interface GlobOptions {
  /** Match at any depth, as if the glob started with `**\/` (a rule glob without a slash). */
  anyDepth?: boolean;
}

export const MAX_GLOB_LENGTH = 1024;

export function compileGlob(glob: string, options: GlobOptions = {}): CompiledGlob {
  if (glob.length > MAX_GLOB_LENGTH) return { ok: false, problem: `it is longer than ${MAX_GLOB_LENGTH} characters` };
  const expanded = expandGlob(glob);
  if (typeof expanded === "string") return { ok: false, problem: expanded };
  const patterns: PathPattern[] = [];
  const folderNeedsChild = starBeforeTrailingGlobstar(glob);
  for (const alternative of expanded) {
    const pattern = compilePathPattern(alternative, options.anyDepth === true, folderNeedsChild);
    if (typeof pattern === "string") return { ok: false, problem: pattern };
    patterns.push(pattern);
  }
  const only = patterns.length === 1 ? patterns[0] : undefined;
  if (only) return { ok: true, patterns, match: (path, counter) => matchPathPattern(only, path.split("/"), counter) };
  return {
    ok: true,
    patterns,
    match: (path, counter) => {
      const segments = path.split("/");
      return patterns.some((pattern) => matchPathPattern(pattern, segments, counter));
    },
  };
}
