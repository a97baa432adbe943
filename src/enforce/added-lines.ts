/**
 * The lines a change adds: what is in the text after it and was not in the
 * text before, counted as a multiset (a line present twice before and three
 * times after adds one). Only added text can break a rule that forbids: a
 * file that already holds a violation can still be edited elsewhere, and
 * removing one is never blocked.
 */
import type { AddedLine, Replacement } from "./proposed.js";

/** The lines of a text: `\r\n` counts as `\n`, and a final newline ends the last line rather than starting an empty one. */
export function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Lines a text was split into at `\n` alone, as `linesOf` reads that text: the `\r` of a `\r\n` dropped from each
 * line a line break ends (every line but the last, unless `lastEnded`).
 */
export function linesAsRead(lines: readonly string[], lastEnded: boolean): string[] {
  const unended = lastEnded ? -1 : lines.length - 1;
  return lines.map((line, index) => (index !== unended && line.endsWith("\r") ? line.slice(0, -1) : line));
}

/**
 * The lines of `after` that `before` does not hold, with their 1-based line
 * numbers in `after`. Linear time: one count per distinct line of `before`,
 * spent by the first lines of `after` that match, so a repeat beyond the count
 * is the one reported.
 */
export function linesAdded(before: string, after: string): AddedLine[] {
  return addedLines(linesOf(before), linesOf(after));
}

/** `linesAdded` over texts already read as lines (`linesOf`, `linesAsRead`). */
export const addedLines = (before: readonly string[], after: readonly string[]): AddedLine[] =>
  addedAgainst(before, after).map(({ text, index }) => ({ text, line: index + 1 }));

/** The entries of `after` that `before` does not hold (multiset), with their index in `after`. */
export function addedAgainst(before: readonly string[], after: readonly string[]): { text: string; index: number }[] {
  const remaining = new Map<string, number>();
  for (const line of before) remaining.set(line, (remaining.get(line) ?? 0) + 1);
  const added: { text: string; index: number }[] = [];
  after.forEach((text, index) => {
    const count = remaining.get(text) ?? 0;
    if (count > 0) remaining.set(text, count - 1);
    else added.push({ text, index });
  });
  return added;
}

/**
 * An edit judged alone, for a file that cannot be read or a replacement that
 * cannot be applied: the lines of its new text that its old text lacks (a
 * line it keeps, or only moves, adds nothing). Without line numbers: a number
 * counted inside the new text would name the wrong line.
 */
export const addedAlone = (replacement: Replacement): AddedLine[] =>
  linesAdded(replacement.oldText, replacement.newText).map(({ text }) => ({ text }));
