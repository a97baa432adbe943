/**
 * A compiled pattern (pattern.ts) against a path, at both levels by the
 * greedy wildcard algorithm that remembers only the last star: its segments
 * against the path's, a segment's tokens against its characters.
 */
import type { CharClass } from "./char-class.js";
import {
  ANY_CHAR,
  CLASS_BASE,
  GLOBSTAR,
  STAR,
  type PathPattern,
  type SegmentPattern,
  type StepCounter,
} from "./pattern.js";

// ---------------------------------------------------------------- one path segment

function matchSegment(pattern: SegmentPattern, segment: string, counter: StepCounter | undefined): boolean {
  if (counter) counter.steps++;
  switch (pattern.kind) {
    case "literal":
      if (counter) counter.steps += pattern.text.length;
      return segment === pattern.text;
    case "star":
      return segment.length > 0;
    case "globstar":
      return true;
    case "wildcard": {
      if (segment.length < pattern.minLength) return false;
      if (counter) counter.steps += pattern.prefix.length + pattern.suffix.length;
      if (!segment.startsWith(pattern.prefix) || !segment.endsWith(pattern.suffix)) return false;
      return (
        pattern.starOnly ||
        matchTokens(pattern, segment, pattern.prefix.length, segment.length - pattern.suffix.length, counter)
      );
    }
  }
}

/** Characters of a segment against its tokens: `*` is the star. */
function matchTokens(
  pattern: { tokens: number[]; classes: CharClass[] },
  text: string,
  from: number,
  to: number,
  counter: StepCounter | undefined,
): boolean {
  const { tokens, classes } = pattern;
  return greedyMatch(
    tokens.length,
    from,
    to,
    (t) => tokens[t] === STAR,
    (t, s) => tokenMatches(tokens[t]!, text.charCodeAt(s), classes, counter),
    counter,
  );
}

/**
 * The greedy wildcard algorithm, at both levels: on a mismatch, go back to
 * just after the last star and let it take one more item. Earlier stars never
 * need to take more, so each (item, pattern element) pair is tried at most
 * once: O(n × m), without recursion.
 */
export function greedyMatch(
  length: number,
  from: number,
  to: number,
  isStar: (p: number) => boolean,
  matches: (p: number, s: number) => boolean,
  counter: StepCounter | undefined,
): boolean {
  let p = 0;
  let s = from;
  let starAt = -1;
  let starFrom = from;
  while (s < to) {
    if (counter) counter.steps++;
    if (p < length && isStar(p)) {
      starAt = p++;
      starFrom = s;
    } else if (p < length && matches(p, s)) {
      p++;
      s++;
    } else if (starAt >= 0) {
      p = starAt + 1;
      s = ++starFrom;
    } else return false;
  }
  while (p < length && isStar(p)) p++;
  return p === length;
}

function tokenMatches(token: number, code: number, classes: CharClass[], counter: StepCounter | undefined): boolean {
  if (token >= 0) return token === code;
  if (token === ANY_CHAR) return true;
  return classMatches(classes[CLASS_BASE - token]!, code, counter);
}

function classMatches(charClass: CharClass, code: number, counter: StepCounter | undefined): boolean {
  const { ranges } = charClass;
  if (counter) counter.steps += ranges.length / 2;
  let inside = false;
  for (let i = 0; i < ranges.length && !inside; i += 2) inside = code >= ranges[i]! && code <= ranges[i + 1]!;
  return inside !== charClass.negated;
}

// ---------------------------------------------------------------- a whole path

export function matchPathPattern(pattern: PathPattern, segments: string[], counter: StepCounter | undefined): boolean {
  const { head, tail, middle } = pattern;
  if (middle.length === 0 ? segments.length !== head.length : segments.length < pattern.minSegments) return false;
  for (let i = 0; i < head.length; i++) if (!matchSegment(head[i]!, segments[i]!, counter)) return false;
  const tailStart = segments.length - tail.length;
  for (let i = 0; i < tail.length; i++) if (!matchSegment(tail[i]!, segments[tailStart + i]!, counter)) return false;
  return middle.length <= 1 || matchMiddle(middle, segments, head.length, tailStart, counter);
}

/** The greedy algorithm one level up: `**` is the star, a path segment the item. */
function matchMiddle(
  middle: SegmentPattern[],
  segments: string[],
  from: number,
  to: number,
  counter: StepCounter | undefined,
): boolean {
  return greedyMatch(
    middle.length,
    from,
    to,
    (p) => middle[p] === GLOBSTAR,
    (p, s) => matchSegment(middle[p]!, segments[s]!, counter),
    counter,
  );
}
