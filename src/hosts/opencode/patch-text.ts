/**
 * Patch text, as OpenCode's patch tools (`apply_patch`, `patch`) take it: the
 * files it names, and per file the edit it makes (its hunks, to apply to the
 * file's text) and the lines it adds judged alone. Two dialects: OpenCode's
 * envelope (`*** Begin Patch`, `*** Add File:`, `*** Update File:`,
 * `*** Move to:`, `@@` chunks, `*** End Patch`), parsed the way OpenCode
 * 1.18 and 2.x parse it (here); and unified diffs (`--- a/x`, `+++ b/x`,
 * `@@ -a,b +c,d @@`), which plugin tools and models send too
 * (patch-unified.ts). Both read into the sections of patch-section.ts.
 */
import { addedAgainst } from "../../enforce/added-lines.js";
import type { AddedLine, Replacement } from "../../enforce/proposed.js";
import { headerOf, type HunkLines, MAX_FILES_PER_PATCH, type Section, sectionFor } from "./patch-section.js";
import { unifiedSections } from "./patch-unified.js";

/** Argument keys that hold patch text, across OpenCode's patch tools and plugin tools. */
export const PATCH_TEXT_KEYS = ["patchText", "patch", "input"] as const;

/**
 * A file a patch writes: the replacements that make its new text (a new
 * file's whole text, or an update's hunks; read from `readFrom` when the
 * patch moves it to `path`), and the lines it adds judged alone.
 */
interface PatchedFile {
  readonly path: string;
  readonly readFrom?: string;
  readonly replacements: readonly Replacement[];
  readonly added: readonly AddedLine[];
}

/** Files a patch touches: `*** Update File: x`, `*** Add File: x`, `--- a/x`, `+++ b/x`. */
export function pathsFromPatch(patch: string): string[] {
  const paths: string[] = [];
  // Every line break a multiline regex knows, as this function's regex form split on.
  for (const line of patch.split(/\r\n|[\n\r\u2028\u2029]/)) {
    const path = headerOf(line)?.path;
    if (path && path !== "/dev/null") paths.push(path);
  }
  return paths;
}

/** The files a patch writes and the lines it adds to each; none for text that is no patch. */
export function patchedFiles(patch: string): PatchedFile[] {
  const lines = withoutHeredoc(patch.trim())
    .split("\n")
    .map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  const begin = lines.findIndex((line) => line.trim() === "*** Begin Patch");
  const sections = begin === -1 ? unifiedSections(lines) : envelopeSections(lines, begin);
  return sections.slice(0, MAX_FILES_PER_PATCH).map(patchedFile);
}

/** Lines as a replacement's text holds them: each ended by a line break. */
const textOfLines = (lines: readonly string[]): string => lines.map((line) => `${line}\n`).join("");

/**
 * A `+` line that only puts back a `-` line of the same file adds nothing: the section's `+` lines
 * minus its `-` lines, as a multiset.
 */
function patchedFile(section: Section): PatchedFile {
  const added = addedAgainst(
    section.minus,
    section.plus.map((entry) => entry.text),
  );
  const replacements: Replacement[] = section.created
    ? [{ oldText: "", newText: textOfLines(section.plus.map((entry) => entry.text)) }]
    : section.hunks
        .filter((hunk) => hunk.old.length + hunk.new.length > 0)
        .map((hunk) => ({ oldText: textOfLines(hunk.old), newText: textOfLines(hunk.new), hunk: true }));
  const readFrom = section.readFrom === undefined ? {} : { readFrom: section.readFrom };
  return { path: section.path, ...readFrom, replacements, added: added.map(({ index }) => section.plus[index]!) };
}

/** OpenCode's `cat <<'EOF' … EOF` wrapper, which both generations strip before parsing. */
function withoutHeredoc(text: string): string {
  const firstBreak = text.indexOf("\n");
  const lastBreak = text.lastIndexOf("\n");
  if (firstBreak === -1 || lastBreak === firstBreak) return text;
  const tag = /^(?:cat\s+)?<<['"]?(\w+)['"]?\s*$/.exec(text.slice(0, firstBreak))?.[1];
  return tag !== undefined && text.slice(lastBreak + 1).trimEnd() === tag
    ? text.slice(firstBreak + 1, lastBreak)
    : text;
}

/**
 * OpenCode's envelope: between `*** Begin Patch` and `*** End Patch` (both
 * required, as OpenCode requires them). An Add File's `+` lines are the new
 * file, line by line; an Update File's chunks start at each `@@` (OpenCode
 * skips what comes before the first), their `+` lines without line numbers
 * (`@@` names a context line, not a place), and a line that is neither
 * context, `-` nor `+` is skipped, as OpenCode skips it; a Move to sends the
 * result to its destination, read from the file it moves.
 */
function envelopeSections(lines: readonly string[], begin: number): Section[] {
  const end = lines.findIndex((line, index) => index > begin && line.trim() === "*** End Patch");
  if (end === -1) return [];
  const sections: Section[] = [];
  let section: Section | undefined;
  let chunk: HunkLines | undefined;
  for (let index = begin + 1; index < end && sections.length < MAX_FILES_PER_PATCH; index++) {
    const line = lines[index]!;
    if (section && !line.startsWith("***")) {
      if (section.created) {
        if (line.startsWith("+")) section.plus.push({ text: line.slice(1), line: section.plus.length + 1 });
      } else if (line.startsWith("@@")) {
        chunk = { old: [], new: [] };
        section.hunks.push(chunk);
      } else if (chunk) chunkLine(section, chunk, line);
      continue;
    }
    if (section && !section.created && line.trim() === "*** End of File") {
      chunk = undefined;
      continue;
    }
    section = undefined;
    chunk = undefined;
    const header = headerOf(line.trim());
    // A file deleted, or moved away, is left with no text: a rule file so is a rule switched off
    // (engine/rule-writes.ts).
    if (header?.kind === "add" || header?.kind === "delete") section = sectionFor(header.path, { created: true });
    else if (header?.kind === "update") {
      const move = headerOf(lines[index + 1] ?? "");
      if (move?.kind === "move") index++;
      if (move?.kind === "move" && move.path) sections.push(sectionFor(header.path, { created: true }));
      section =
        move?.kind === "move" && move.path ? sectionFor(move.path, { readFrom: header.path }) : sectionFor(header.path);
    }
    if (section) sections.push(section);
  }
  return sections;
}

/** One line of an envelope chunk: context goes to both sides, `-` to the old, `+` to the new. */
function chunkLine(section: Section, chunk: HunkLines, line: string): void {
  const text = line.slice(1);
  if (line.startsWith(" ")) {
    chunk.old.push(text);
    chunk.new.push(text);
  } else if (line.startsWith("-")) {
    chunk.old.push(text);
    section.minus.push(text);
  } else if (line.startsWith("+")) {
    chunk.new.push(text);
    section.plus.push({ text });
  }
}
