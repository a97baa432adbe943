/**
 * Where a rule's text holds file references, for each syntax a format may
 * define (./references.ts follows them):
 * - `at-line`: `@path/to/file.md` alone on a line (the path's last part has
 *   an extension, so `@rule-name` mentions are left alone);
 * - `kiro-file`: Kiro's `#[[file:path]]`, anywhere in a line;
 * - `gemini-import`: Gemini CLI's `@path` import
 *   (https://geminicli.com/docs/reference/memport/), anywhere in a line: an
 *   `@` at the start of the line or after a blank, then the path up to the
 *   next blank, starting with `.`, `/` or a letter. A word with neither a
 *   slash nor an extension (`@alice`) is a mention here, not an import.
 * References in code (fenced blocks, inline code spans: ./markdown-code.ts)
 * are text, never found.
 */
import { type LineCode, proseRanges } from "./markdown-code.js";

/** `at-line`: `@path/file.md` alone on a line; `kiro-file`: `#[[file:path]]`; `gemini-import`: `@path` after a blank, anywhere. */
export type ReferenceSyntax = "at-line" | "kiro-file" | "gemini-import";

/** The syntaxes of the plugin's own folders (a source that says nothing). */
export const REFERENCE_SYNTAXES: readonly ReferenceSyntax[] = ["at-line", "kiro-file"];

/** A reference in one line: where it is written, the path it names, and its syntax. */
interface FoundReference {
  start: number;
  end: number;
  path: string;
  /** As written, for warnings: `@path`, `#[[file:path]]`. */
  written: string;
  syntax: ReferenceSyntax;
}

const AT_LINE = /^(\s*)@([^\s@][^\s]*)\s*$/;
const KIRO_OPEN = "#[[file:";
/** A Gemini import could start here: `@` after a blank or at a line's start, then `.`, `/` or a letter. */
const GEMINI_START = /(^|\s)@[./A-Za-z]/m;

/** Cheap test: could `text` hold a reference of these syntaxes at all? It may say yes for one in code. */
export function mayHaveReferences(text: string, syntaxes: readonly ReferenceSyntax[] = REFERENCE_SYNTAXES): boolean {
  if (syntaxes.includes("kiro-file") && text.includes(KIRO_OPEN)) return true;
  if (!text.includes("@")) return false;
  if (syntaxes.includes("gemini-import") && GEMINI_START.test(text)) return true;
  return syntaxes.includes("at-line") && text.split("\n").some((line) => atLinePath(line) !== undefined);
}

/** The references of `syntaxes` in one line outside code, in order. */
export function referencesInLine(line: string, code: LineCode, syntaxes: readonly ReferenceSyntax[]): FoundReference[] {
  if (code.fenced) return [];
  // An @path line holds only the path, so a code span on it lies in the path: code, not a reference.
  const at = syntaxes.includes("at-line") && code.spans.length === 0 ? atLinePath(line) : undefined;
  if (at !== undefined) return [{ start: 0, end: line.length, path: at, written: `@${at}`, syntax: "at-line" }];
  const kiro = syntaxes.includes("kiro-file") && line.includes(KIRO_OPEN);
  const gemini = syntaxes.includes("gemini-import") && line.includes("@");
  if (!kiro && !gemini) return [];
  const found: FoundReference[] = [];
  // Only in the prose between code spans: a reference cannot start, end or lie in code.
  for (const [from, to] of proseRanges(line, code)) {
    const inRange: FoundReference[] = [];
    if (kiro) {
      for (const match of kiroReferences(line.slice(from, to))) {
        const start = from + match.start;
        const end = from + match.end;
        inRange.push({ start, end, path: match.path.trim(), written: line.slice(start, end), syntax: "kiro-file" });
      }
    }
    if (gemini) inRange.push(...geminiImports(line, from, to));
    inRange.sort((a, b) => a.start - b.start);
    let last = from;
    for (const reference of inRange) {
      if (reference.start < last) continue;
      found.push(reference);
      last = reference.end;
    }
  }
  return found;
}

/** The path of a line holding only `@path/with.ext`. */
function atLinePath(line: string): string | undefined {
  const path = AT_LINE.exec(line)?.[2];
  return path !== undefined && looksLikePath(path) ? path : undefined;
}

/**
 * The `#[[file:path]]` in `text` (one line), as the pattern
 * `#\[\[file:([^\]]+)\]\]` finds them, in linear time: the first `]` after
 * an opening is found once for all the openings before it, where a regular
 * expression would search again from each.
 */
function kiroReferences(text: string): Array<{ start: number; end: number; path: string }> {
  const found: Array<{ start: number; end: number; path: string }> = [];
  let bracket = -1;
  let from = 0;
  for (let start = text.indexOf(KIRO_OPEN, from); start >= 0; start = text.indexOf(KIRO_OPEN, from)) {
    const pathStart = start + KIRO_OPEN.length;
    if (bracket < pathStart) {
      bracket = text.indexOf("]", pathStart);
      if (bracket < 0) break;
    }
    if (bracket > pathStart && text[bracket + 1] === "]") {
      found.push({ start, end: bracket + 2, path: text.slice(pathStart, bracket) });
      from = bracket + 2;
    } else {
      from = start + 1;
    }
  }
  return found;
}

const isBlank = (char: string | undefined) => char === " " || char === "\t" || char === "\r";

/** Gemini CLI's imports in `line[from, to)`: `@` at the line's start or after a blank, the path up to the next blank. */
function geminiImports(line: string, from: number, to: number): FoundReference[] {
  const found: FoundReference[] = [];
  for (let at = line.indexOf("@", from); at >= 0 && at < to; at = line.indexOf("@", at + 1)) {
    if (at > 0 && !isBlank(line[at - 1])) continue;
    let end = at + 1;
    while (end < to && !isBlank(line[end])) end++;
    const path = line.slice(at + 1, end);
    if (/^[./A-Za-z]/.test(path) && (path.includes("/") || looksLikePath(path)))
      found.push({ start: at, end, path, written: `@${path}`, syntax: "gemini-import" });
    at = end - 1;
  }
  return found;
}

function looksLikePath(token: string): boolean {
  const last = token.slice(token.lastIndexOf("/") + 1);
  return last !== "." && last !== ".." && /\.[A-Za-z0-9]+$/.test(last);
}
