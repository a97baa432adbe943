/**
 * A patch's hunks applied to a file's lines, as OpenCode's patch tools apply
 * them: whole lines, sought from where the file's previous hunk ended, the
 * first run that matches exactly, then with line ends trimmed, then trimmed
 * (the `@@` context line they seek first is not: it only moves where a
 * repeated run is taken). The work is spent from the caller's bound. Pure.
 */
import { spend, type Work } from "./apply-work.js";
import type { Replacement } from "./proposed.js";

/** A file's text as the hunks see it: split at `\n` alone (a `\r` stays on its line), a final line break ending the last line. */
export function hunkedFileLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** A hunk's text as lines: each line ended by `\n`. */
const hunkLines = (text: string): string[] =>
  text === "" ? [] : (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");

/**
 * The file's `lines` with `hunks` applied in order, each hunk's old lines
 * sought from the cursor; those not found (or past the bound) are added to
 * `unapplied`. `lines` itself is left as it was.
 */
export function linesWithHunks(
  lines: readonly string[],
  hunks: readonly Replacement[],
  work: Work,
  unapplied: Replacement[],
): readonly string[] {
  let current = lines;
  let cursor = 0;
  for (const hunk of hunks) {
    let old = hunkLines(hunk.oldText);
    let fresh = hunkLines(hunk.newText);
    if (!spend(work, current.length + fresh.length)) {
      unapplied.push(hunk);
      continue;
    }
    if (old.length === 0) {
      // Only new lines: patch tools add them at the end of the file.
      current = current.concat(fresh);
      continue;
    }
    let found = seek(current, old, cursor, work);
    // As OpenCode retries: without a final empty line the model added to both sides.
    if (found === -1 && old.length > 1 && old.at(-1) === "") {
      old = old.slice(0, -1);
      if (fresh.at(-1) === "") fresh = fresh.slice(0, -1);
      found = seek(current, old, cursor, work);
    }
    if (found === -1) {
      unapplied.push(hunk);
      continue;
    }
    current = current.slice(0, found).concat(fresh, current.slice(found + old.length));
    cursor = found + fresh.length;
  }
  return current;
}

const SEEK_PASSES: readonly ((line: string) => string)[] = [
  (line) => line,
  (line) => line.trimEnd(),
  (line) => line.trim(),
];

/** The first index at or after `from` where `lines` hold `pattern`: exactly, then with line ends trimmed, then trimmed; -1 when none does (or the work runs out). */
function seek(lines: readonly string[], pattern: readonly string[], from: number, work: Work): number {
  for (const form of SEEK_PASSES) {
    const want = pattern.map(form);
    for (let index = from; index + want.length <= lines.length; index++) {
      let matched = 0;
      let cost = 1;
      for (; matched < want.length; matched++) {
        const line = form(lines[index + matched]!);
        // Comparing strings of one length may read them whole.
        if (line.length === want[matched]!.length) cost += line.length;
        if (line !== want[matched]) break;
      }
      if (!spend(work, cost)) return -1;
      if (matched === want.length) return index;
    }
  }
  return -1;
}
