/**
 * Where a Markdown text holds code, so that what looks like a file reference
 * or a link there is read as the text it is. After CommonMark:
 * - a fenced code block opens on a line whose first non-blank content is a
 *   run of 3 or more backticks or tildes (at any indentation, since fences
 *   sit in list items; a backtick fence's info string holds no backtick),
 *   and closes on a line holding only a run of the same character at least
 *   as long, blanks around it allowed; an unclosed fence runs to the end;
 * - an inline code span opens with a run of N backticks and closes with the
 *   next run of exactly N; a run with no such closer is plain text, and a
 *   backslash outside code escapes the backtick after it.
 * Unlike CommonMark, a code span never crosses a line: each line is read on
 * its own, so a stray backtick costs at most the rest of its line, and the
 * callers, which look for references line by line, need no look-ahead.
 * Indented code blocks, HTML blocks and `>` before a fence are not read.
 *
 * Linear in the text's length (rule files are untrusted and may be large):
 * no regular expressions, and each backtick run is looked at a bounded number
 * of times.
 */

/** `[start, end)` of a part of a line, in UTF-16 code units. */
type CodeRange = readonly [start: number, end: number];

export interface LineCode {
  /** The line opens, closes or lies inside a fenced code block: all of it is code. */
  fenced: boolean;
  /** Outside fences, the line's inline code spans (backticks included), in order. */
  spans: readonly CodeRange[];
}

interface Fence {
  char: "`" | "~";
  length: number;
}

const FENCED: LineCode = Object.freeze({ fenced: true, spans: Object.freeze([]) });

/** For each line, whether it is fenced code, and else its inline code spans. */
export function codeMask(lines: readonly string[]): LineCode[] {
  const mask: LineCode[] = [];
  let fence: Fence | undefined;
  for (const line of lines) {
    if (fence !== undefined) {
      if (closesFence(line, fence)) fence = undefined;
      mask.push(FENCED);
      continue;
    }
    fence = opensFence(line);
    mask.push(fence !== undefined ? FENCED : { fenced: false, spans: codeSpans(line) });
  }
  return mask;
}

/** The parts of a line outside code: the whole line, none of a fenced one, else the gaps between its code spans. */
export function proseRanges(line: string, code: LineCode): CodeRange[] {
  if (code.fenced) return [];
  const ranges: CodeRange[] = [];
  let from = 0;
  for (const [start, end] of code.spans) {
    if (start > from) ranges.push([from, start]);
    from = end;
  }
  if (from < line.length) ranges.push([from, line.length]);
  return ranges;
}

/** The inline code spans of one line, backticks included, in order. */
export function codeSpans(line: string): CodeRange[] {
  if (!line.includes("`")) return [];
  const runs = backtickRuns(line);
  // Each length's runs, with a cursor that only moves forward: the closer of
  // an opener is found without scanning the line again (runs are visited in order).
  const byLength = new Map<number, { runs: number[]; next: number }>();
  runs.forEach((run, index) => {
    const same = byLength.get(run.length);
    if (same) same.runs.push(index);
    else byLength.set(run.length, { runs: [index], next: 0 });
  });
  const closerOf = (length: number, after: number): number | undefined => {
    const same = byLength.get(length);
    if (!same) return undefined;
    while (same.next < same.runs.length && (same.runs[same.next] as number) <= after) same.next++;
    return same.runs[same.next];
  };
  const spans: CodeRange[] = [];
  let index = 0;
  while (index < runs.length) {
    const run = runs[index] as Run;
    // An escaped first backtick is text; the rest of the run may still open a span.
    const skip = escaped(line, run.start) ? 1 : 0;
    const closer = run.length - skip > 0 ? closerOf(run.length - skip, index) : undefined;
    if (closer === undefined) {
      index++;
      continue;
    }
    const close = runs[closer] as Run;
    spans.push([run.start + skip, close.start + close.length]);
    index = closer + 1;
  }
  return spans;
}

interface Run {
  start: number;
  length: number;
}

/** The line's maximal runs of backticks. */
function backtickRuns(line: string): Run[] {
  const runs: Run[] = [];
  let at = line.indexOf("`");
  while (at >= 0) {
    const end = runEnd(line, at);
    runs.push({ start: at, length: end - at });
    at = line.indexOf("`", end);
  }
  return runs;
}

/** Whether the character at `at` follows an odd number of backslashes (outside code, a backslash escapes the next one). */
function escaped(line: string, at: number): boolean {
  let count = 0;
  for (let i = at - 1; i >= 0 && line[i] === "\\"; i--) count++;
  return count % 2 === 1;
}

function opensFence(line: string): Fence | undefined {
  const start = skipBlanks(line, 0);
  const char = line[start];
  if (char !== "`" && char !== "~") return undefined;
  const end = runEnd(line, start);
  if (end - start < 3) return undefined;
  // "```js `x`" is a line of text with a code span, not a fence.
  if (char === "`" && line.includes("`", end)) return undefined;
  return { char, length: end - start };
}

function closesFence(line: string, fence: Fence): boolean {
  const start = skipBlanks(line, 0);
  if (line[start] !== fence.char) return false;
  const end = runEnd(line, start);
  return end - start >= fence.length && skipBlanks(line, end) === line.length;
}

/** The index after the run of the character at `start`. */
function runEnd(line: string, start: number): number {
  const char = line[start];
  let end = start + 1;
  while (line[end] === char) end++;
  return end;
}

function skipBlanks(line: string, from: number): number {
  let at = from;
  while (line[at] === " " || line[at] === "\t") at++;
  return at;
}
