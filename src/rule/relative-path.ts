/** Relative paths, for the trust check (trust.ts) and discovery (src/discover/). */
import { relative, sep } from "node:path";

/** A part `.` or `..`, a doubled separator, or a trailing one: a path `relative` would normalise first. */
const UNNORMAL = /\/\.{1,2}(?:\/|$)|\/\/|.\/$/;

/** An absolute POSIX path already in normal form: string arithmetic on it agrees with `node:path`. */
export function isNormalPath(path: string): boolean {
  return sep === "/" && path.startsWith("/") && !UNNORMAL.test(path);
}

/**
 * `path.relative(from, to)`, by string arithmetic when `to` lies in `from`
 * (or is it) and both are normal absolute POSIX paths; `node:path` otherwise.
 */
export function relativePath(from: string, to: string): string {
  if (to.startsWith(from) && isNormalPath(from) && isNormalPath(to)) {
    if (to.length === from.length) return "";
    if (from === "/") return to.slice(1);
    if (to.charCodeAt(from.length) === SLASH) return to.slice(from.length + 1);
  }
  return relative(from, to);
}

const SLASH = 0x2f;
