/** What a compiled glob fixes about every path it matches: what the glob index files it under. */
import type { PathPattern } from "./pattern.js";

/**
 * What every path the pattern matches has, for an index of globs: its first
 * segments when the pattern starts with literal ones (`src/app` of
 * `src/app/**`), else its last segment (`name`) or that segment's extension
 * (`ts` of `**\/*.ts`); undefined when the pattern fixes neither.
 */
export type FixedPart = { kind: "prefix" | "name" | "extension"; key: string };

export function fixedPart(pattern: PathPattern): FixedPart | undefined {
  const { head, tail, middle } = pattern;
  const prefix: string[] = [];
  for (const segment of head) {
    if (segment.kind !== "literal") break;
    prefix.push(segment.text);
  }
  if (prefix.length > 0) return { kind: "prefix", key: prefix.join("/") };
  // Without a `**`, the head is the whole path; with one, the tail ends it.
  const last = middle.length === 0 ? head[head.length - 1] : tail[tail.length - 1];
  if (last?.kind === "literal") return { kind: "name", key: last.text };
  if (last?.kind === "wildcard" && last.suffix.includes("."))
    return { kind: "extension", key: last.suffix.slice(last.suffix.lastIndexOf(".") + 1) };
  return undefined;
}
