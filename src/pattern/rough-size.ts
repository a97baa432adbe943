/**
 * How big a regular expression will compile, read from its text alone. RE2
 * compiles in time proportional to the program it makes, and a 500-character
 * pattern of repeats (`a{1000}a{1000}…`) makes 70,000 instructions, some
 * 150 ms of work: a pattern this estimate finds far too big is refused
 * before it is compiled. Pure; linear in the pattern's length.
 */

/** The rough number of instructions `re2` compiles to: each atom counts one, a repeat multiplies what it repeats. */
export function roughSize(re2: string): number {
  // One frame per open group: its size so far, and the size of its last item (what a repeat applies to).
  const frames = [{ total: 0, last: 0 }];
  let frame = frames[0]!;
  const item = (size: number) => {
    frame.total += size;
    frame.last = size;
  };
  for (let i = 0; i < re2.length; i++) {
    const char = re2[i];
    if (char === "\\") {
      i = escapeEnd(re2, i);
      item(1);
    } else if (char === "[") {
      i = classEnd(re2, i);
      item(1);
    } else if (char === "(") {
      i = groupStart(re2, i);
      frame = { total: 0, last: 0 };
      frames.push(frame);
    } else if (char === ")" && frames.length > 1) {
      const inner = frames.pop()!;
      frame = frames[frames.length - 1]!;
      item(inner.total + 1);
    } else if (char === "{") {
      const repeat = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(re2.slice(i, i + 12));
      if (!repeat) item(1);
      else {
        const times = repeat[3] ? Number(repeat[3]) : Number(repeat[1]) + (repeat[2] ? 1 : 0);
        frame.total += frame.last * (Math.max(times, 1) - 1) + 1;
        frame.last *= Math.max(times, 1);
        i += repeat[0].length - 1;
      }
    } else if (char === "*" || char === "+" || char === "?") frame.total += 1;
    else item(1);
  }
  return frames.reduce((sum, open) => sum + open.total, 0);
}

/** The index of an escape's last character: `\d`, `\p{Greek}`, `\x{1F600}`, or a `\Q…\E` run. */
function escapeEnd(re2: string, start: number): number {
  const kind = re2[start + 1];
  if ((kind === "p" || kind === "P" || kind === "x") && re2[start + 2] === "{") {
    const close = re2.indexOf("}", start + 3);
    return close < 0 ? re2.length : close;
  }
  if (kind === "Q") {
    const close = re2.indexOf("\\E", start + 2);
    return close < 0 ? re2.length : close + 1;
  }
  return start + 1;
}

/** The index of a character class's closing `]` (a `]` first in the class is one of its characters). */
function classEnd(re2: string, start: number): number {
  let i = start + 1;
  if (re2[i] === "^") i++;
  if (re2[i] === "]") i++;
  for (; i < re2.length; i++) {
    if (re2[i] === "\\") i++;
    else if (re2[i] === "[" && re2[i + 1] === ":") {
      const close = re2.indexOf(":]", i + 2);
      if (close >= 0) i = close + 1;
    } else if (re2[i] === "]") return i;
  }
  return re2.length;
}

/** The index of a group's last opening character: `(`, `(?:`, `(?i:`, `(?P<name>`. */
function groupStart(re2: string, start: number): number {
  if (re2[start + 1] !== "?") return start;
  const named = /^\(\?P?<[^>]*>/.exec(re2.slice(start, start + 64));
  if (named) return start + named[0].length - 1;
  const flags = /^\(\?[a-zA-Z-]*:?/.exec(re2.slice(start, start + 16));
  return start + (flags ? flags[0].length : 1) - 1;
}
