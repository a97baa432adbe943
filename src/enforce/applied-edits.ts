/**
 * Edits applied to a file's text in memory, the way the host applies them,
 * so that the check can judge an edit by its result, as it judges a write.
 * Pure.
 *
 * An edit's old text (OpenCode's `edit`, `multiedit`) is found exactly, and
 * must be found once unless every occurrence is asked for; failing that, as
 * OpenCode's first fallback does, as a run of whole lines equal to its lines
 * once each side is trimmed. Both generations take the text's own line
 * ending for the old and new text. OpenCode then tries looser matches
 * (indentation, escapes, anchor lines scored by similarity); those are not
 * reproduced: a replacement none of ours finds is returned unapplied, for
 * the caller to judge by its own text.
 *
 * A patch's hunks are applied as lines (applied-hunks.ts). For the check,
 * `editedLines` gives the file's lines before and after: a patch's are the
 * lines its hunks were applied to and the lines they made, so the file is
 * split once and its result never joined only to be split again.
 *
 * The work is bounded: what each step scans, copies or compares is counted
 * against `maxWork`, and a replacement that would go past it is left
 * unapplied, so a large file edited many times costs a bounded time.
 */
import { linesAsRead, linesOf } from "./added-lines.js";
import { spend, type Work } from "./apply-work.js";
import { hunkedFileLines, linesWithHunks } from "./applied-hunks.js";
import type { Replacement } from "./proposed.js";

/**
 * Characters scanned, copied or compared for one file: about 50 ms of work
 * (measured: an edit costs three scans of the text, ~15 ms for 8 MiB), so an
 * 8 MiB file takes two edits, a 100 KiB one two hundred.
 */
export const MAX_APPLY_WORK = 64 * 1024 * 1024;

interface AppliedEdits {
  /** The text with every replacement that could be applied. */
  readonly text: string;
  /** The replacements not applied, in order: old text not found, found more than once without `all`, or past the work bound. */
  readonly unapplied: readonly Replacement[];
}

/** `text` with `replacements` applied in order; each later one sees the text the earlier ones made. */
export function appliedEdits(
  text: string,
  replacements: readonly Replacement[],
  maxWork = MAX_APPLY_WORK,
): AppliedEdits {
  const work: Work = { left: maxWork };
  const unapplied: Replacement[] = [];
  let current = text;
  let index = 0;
  while (index < replacements.length) {
    const replacement = replacements[index]!;
    if (replacement.hunk) {
      // A patch's hunks for one file are applied as lines, together: the file is split once.
      let end = index;
      while (end < replacements.length && replacements[end]!.hunk) end++;
      current = withHunks(current, replacements.slice(index, end), work, unapplied);
      index = end;
    } else {
      const next = replaced(current, replacement, work);
      if (next === undefined) unapplied.push(replacement);
      else current = next;
      index++;
    }
  }
  return { text: current, unapplied };
}

/** A file's lines as `linesOf` reads its text, before and after `replacements`, and the replacements not applied. */
interface EditedLines {
  readonly before: readonly string[];
  readonly after: readonly string[];
  readonly unapplied: readonly Replacement[];
}

/**
 * The lines of `text` and of `appliedEdits(text, replacements).text`, as `linesOf` reads them, with what was not
 * applied. A patch's update (hunks only) is applied to the lines the file is split into once, and the lines it makes
 * are taken as they are.
 */
export function editedLines(text: string, replacements: readonly Replacement[], maxWork = MAX_APPLY_WORK): EditedLines {
  if (replacements.length === 0 || !replacements.every((replacement) => replacement.hunk === true)) {
    const result = appliedEdits(text, replacements, maxWork);
    return { before: linesOf(text), after: linesOf(result.text), unapplied: result.unapplied };
  }
  const lines = hunkedFileLines(text);
  const before = linesAsRead(lines, text.endsWith("\n"));
  const work: Work = { left: maxWork };
  // As `withHunks`: past the bound, the text is left as it was.
  if (!spend(work, 2 * text.length)) return { before, after: before, unapplied: replacements };
  const unapplied: Replacement[] = [];
  // Applying hunks ends the file with a line break (`withHunks`): every line after is ended.
  const after = linesAsRead(linesWithHunks(lines, replacements, work, unapplied), true);
  return { before, after, unapplied };
}

/**
 * A file's hunks applied as OpenCode's patch tools apply them: the text as
 * lines (a final line break ends the last line); the result always ends with
 * a line break, as theirs does.
 */
function withHunks(text: string, hunks: readonly Replacement[], work: Work, unapplied: Replacement[]): string {
  if (!spend(work, 2 * text.length)) {
    unapplied.push(...hunks);
    return text;
  }
  const lines = linesWithHunks(hunkedFileLines(text), hunks, work, unapplied);
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** The old and new text take the text's line ending, as both generations' edit tools convert them. */
function inEnding(value: string, ending: string): string {
  const lf = value.replaceAll("\r\n", "\n");
  return ending === "\n" ? lf : lf.replaceAll("\n", ending);
}

/** One edit's result, or undefined when it cannot be applied. */
function replaced(text: string, replacement: Replacement, work: Work): string | undefined {
  // OpenCode 1.x writes newString as the whole file when oldString is empty (2.x refuses the call).
  if (replacement.oldText === "") return spend(work, replacement.newText.length) ? replacement.newText : undefined;
  if (!spend(work, 3 * text.length + replacement.oldText.length + replacement.newText.length)) return undefined;
  const ending = text.includes("\r\n") ? "\r\n" : "\n";
  const oldText = inEnding(replacement.oldText, ending);
  const newText = inEnding(replacement.newText, ending);
  const exact = replacedAt(text, oldText, newText, replacement.all === true, work);
  if (exact !== undefined) return exact;
  for (const search of lineTrimmedMatches(text, oldText, work)) {
    if (!spend(work, 2 * text.length)) return undefined;
    const result = replacedAt(text, search, newText, replacement.all === true, work);
    if (result !== undefined) return result;
  }
  return undefined;
}

/** `search` replaced by `newText`: its one occurrence, or every one with `all`; undefined when it is missing or (without `all`) not unique. */
function replacedAt(text: string, search: string, newText: string, all: boolean, work: Work): string | undefined {
  // Blank lines trimmed match as "", which stands everywhere: nothing to replace.
  if (search === "") return undefined;
  const first = text.indexOf(search);
  if (first === -1) return undefined;
  if (!all)
    return first === text.lastIndexOf(search)
      ? text.slice(0, first) + newText + text.slice(first + search.length)
      : undefined;
  const starts: number[] = [];
  for (let at = first; at !== -1; at = text.indexOf(search, at + search.length)) starts.push(at);
  // The result is built by slices, never by String.replaceAll, whose `$&` patterns would rewrite the new text.
  if (!spend(work, text.length + starts.length * (newText.length + 1))) return undefined;
  const parts: string[] = [];
  let from = 0;
  for (const start of starts) {
    parts.push(text.slice(from, start), newText);
    from = start + search.length;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

/** OpenCode 1.x's LineTrimmedReplacer: each run of whole lines of `text` whose trimmed lines are the old text's, as the text holds it (no final line break). */
function* lineTrimmedMatches(text: string, find: string, work: Work): Generator<string> {
  const wanted = find.split("\n");
  if (wanted.at(-1) === "") wanted.pop();
  if (wanted.length === 0 || !spend(work, 2 * text.length)) return;
  const lines = text.split("\n");
  const trimmed = lines.map((line) => line.trim());
  const want = wanted.map((line) => line.trim());
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  for (let index = 0; index + want.length <= lines.length; index++) {
    let matched = 0;
    while (matched < want.length && trimmed[index + matched] === want[matched]) matched++;
    if (!spend(work, matched + 1)) return;
    if (matched < want.length) continue;
    const last = index + want.length - 1;
    yield text.slice(starts[index], starts[last]! + lines[last]!.length);
  }
}
