/**
 * What a change adds: the lines of the text after it that the text before it
 * did not hold, counted as a multiset (a line there twice before and three
 * times after adds one). Lines that stay, move or go add nothing, so a file
 * that already breaks a rule can still be changed elsewhere, and removing a
 * violation is never refused. Pure; linear in the two texts.
 */
import type { AddedLine } from "./proposed.js";

export function linesAdded(before: string, after: string): AddedLine[] {
  const left = new Map<string, number>();
  if (before !== "") for (const line of splitLines(before)) left.set(line, (left.get(line) ?? 0) + 1);
  const added: AddedLine[] = [];
  if (after === "") return added;
  splitLines(after).forEach((text, i) => {
    const remaining = left.get(text) ?? 0;
    if (remaining > 0) left.set(text, remaining - 1);
    else added.push({ text, line: i + 1 });
  });
  return added;
}

/** The text's lines, `\r\n` read as `\n`; a last newline ends the last line, it does not start an empty one. */
export function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
