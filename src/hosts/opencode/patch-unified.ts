/**
 * Unified diffs (`--- a/x`, `+++ b/x`, `@@ -a,b +c,d @@`), as plugin tools
 * and models send them to the patch tools: read into sections for
 * patch-text.ts.
 */
import { headerOf, type HunkLines, MAX_FILES_PER_PATCH, type Section, sectionFor } from "./patch-section.js";

/**
 * Where a unified hunk stands: the old and new lines its header announced and not yet seen, the new
 * side's next line number, and its lines so far.
 */
interface Hunk {
  oldLeft: number;
  newLeft: number;
  next?: number;
  readonly lines: HunkLines;
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Unified diffs: a file from its `+++` line (none for `/dev/null`, a file
 * deleted), its `+` lines numbered from the hunk header's `+c`. A hunk's
 * header counts its lines, so a `+++` or `---` inside it is content; a bare
 * `@@` (no counts) runs to the next header, without line numbers.
 */
export function unifiedSections(lines: readonly string[]): Section[] {
  const sections: Section[] = [];
  let section: Section | undefined;
  let hunk: Hunk | undefined;
  for (let index = 0; index < lines.length && sections.length < MAX_FILES_PER_PATCH; index++) {
    const line = lines[index]!;
    if (hunk && inHunk(hunk, line, lines[index + 1])) {
      consume(hunk, line, section);
      continue;
    }
    hunk = undefined;
    if (line.startsWith("@@")) {
      hunk = hunkOf(line);
      section?.hunks.push(hunk.lines);
    } else if (line.startsWith("+++ ")) {
      const path = headerOf(line)?.path.replace(/\t.*$/, "");
      section = path && path !== "/dev/null" ? sectionFor(path) : undefined;
      if (section) sections.push(section);
    }
  }
  return sections;
}

function hunkOf(header: string): Hunk {
  const counts = HUNK_HEADER.exec(header);
  const lines = { old: [], new: [] };
  if (!counts) return { oldLeft: Number.POSITIVE_INFINITY, newLeft: Number.POSITIVE_INFINITY, lines };
  return { oldLeft: Number(counts[1] ?? 1), newLeft: Number(counts[3] ?? 1), next: Number(counts[2]), lines };
}

/**
 * Whether a line still belongs to the hunk: its counts not yet spent, and a diff line (a bare hunk
 * also stops at the next header).
 */
function inHunk(hunk: Hunk, line: string, following: string | undefined): boolean {
  if (hunk.oldLeft <= 0 && hunk.newLeft <= 0) return false;
  if (!/^[-+ \\]/.test(line) && line !== "") return false;
  if (hunk.next !== undefined) return true;
  return !(line.startsWith("--- ") && following?.startsWith("+++ "));
}

/**
 * Counts one line of a hunk, and keeps its text in the file's section (none before a `+++` line, or
 * for a file deleted).
 */
function consume(hunk: Hunk, line: string, section: Section | undefined): void {
  const sign = line[0];
  const text = line.slice(1);
  if (sign === "\\") return; // "\ No newline at end of file"
  if (sign === "+") {
    section?.plus.push(hunk.next === undefined ? { text } : { text, line: hunk.next });
    hunk.lines.new.push(text);
    if (hunk.next !== undefined) hunk.next++;
    hunk.newLeft--;
  } else if (sign === "-") {
    section?.minus.push(text);
    hunk.lines.old.push(text);
    hunk.oldLeft--;
  } else {
    hunk.lines.old.push(text);
    hunk.lines.new.push(text);
    if (hunk.next !== undefined) hunk.next++;
    hunk.oldLeft--;
    hunk.newLeft--;
  }
}
