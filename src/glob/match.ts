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
  pattern: { tokens: number[]; classes: CharClass[]; placeStarts?: number[] },
  text: string,
  from: number,
  to: number,
  counter: StepCounter | undefined,
): boolean {
  const { tokens, classes, placeStarts } = pattern;
  // A class's own text starts with `[`: without one, each class takes one character, as every other token.
  if (placeStarts && hasBracket(text, from, to))
    return matchPlaces(tokens, classes, placeStarts, text, from, to, counter);
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

function hasBracket(text: string, from: number, to: number): boolean {
  const at = text.indexOf("[", from);
  return at >= 0 && at < to;
}

/**
 * Tokens against characters when a class may also match its own text
 * (`[id]`: `i`, `d` or `[id]`). A token then takes one character or several,
 * and the greedy algorithm, which assumes one, could miss a match (`*[ab]*b]`
 * against `[ab]`). So every place the tokens can be at is kept at once, as a
 * regular-expression engine without backtracking does: a place is a token
 * (`k` = 0) or a class's text read up to its `k`th character. Each character
 * is tried once against each place: O(text × places), places ≤ segment length.
 */
function matchPlaces(
  tokens: number[],
  classes: CharClass[],
  starts: number[],
  text: string,
  from: number,
  to: number,
  counter: StepCounter | undefined,
): boolean {
  const end = tokens.length;
  // The places reached, as (token, k) pairs; `seen` holds, per place, the character index it was last reached for.
  let current: number[] = [];
  let next: number[] = [];
  const seen = new Int32Array(starts[end]! + 1).fill(-1);
  const reach = (t: number, k: number, s: number) => {
    const place = starts[t]! + k;
    if (seen[place] === s) return;
    seen[place] = s;
    next.push(t, k);
    // A star may take nothing: the token after it is reached too.
    if (k === 0 && t < end && tokens[t] === STAR) reach(t + 1, 0, s);
  };
  reach(0, 0, from);
  for (let s = from; s < to && next.length > 0; s++) {
    const swap = current;
    current = next;
    next = swap;
    next.length = 0;
    const code = text.charCodeAt(s);
    for (let i = 0; i < current.length; i += 2) {
      if (counter) counter.steps++;
      const t = current[i]!;
      const k = current[i + 1]!;
      if (t === end) continue;
      const token = tokens[t]!;
      const literal = token <= CLASS_BASE ? classes[CLASS_BASE - token]!.literal : undefined;
      if (k > 0) {
        const own = literal as string;
        if (code !== own.charCodeAt(k)) continue;
        if (k + 1 === own.length) reach(t + 1, 0, s + 1);
        else reach(t, k + 1, s + 1);
      } else if (token === STAR) reach(t, 0, s + 1);
      else {
        if (tokenMatches(token, code, classes, counter)) reach(t + 1, 0, s + 1);
        if (literal !== undefined && code === literal.charCodeAt(0)) reach(t, 1, s + 1);
      }
    }
  }
  // Reached after the last character: the end place, marked with the index past it.
  return seen[starts[end]!] === to;
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
