/**
 * Where a rule's text holds file references, for each syntax a format may
 * define (./references.ts follows them):
 * - `at-line`: `@path/to/file.md` alone on a line (the path's last part has
 *   an extension, so `@rule-name` mentions are left alone);
 * - `kiro-file`: Kiro's `#[[file:path]]`, anywhere in a line;
 * - `gemini-import`: Gemini CLI's `@path` import
 *   (https://geminicli.com/docs/reference/memport/), anywhere in a line, as
 *   its import reader finds one: an `@` at the start of the line or after a
 *   blank, then the path up to the next blank (a trailing `.` or `,` is part
 *   of it, as there), starting with `.`, `/` or a letter; not a URL. Gemini
 *   tries every such word as a file; here only one that looks like a path is
 *   a reference, so that `@Component`, `@media` or `@alice` stay text:
 *   - a path for sure (a missing file is warned about): `@./x`, `@../x`,
 *     `@/x`, `@.name`; a path with a `/` whose last part has an extension
 *     (`@docs/style.md`); a bare name with a common file extension
 *     (`@style.md`, `@Component.ts`);
 *   - maybe a path (followed only when it names a file, else text with no
 *     warning): another word with a `/` or a dotted last part
 *     (`@types/node`, `@pytest.mark.parametrize`, `@app.get("/users")`).
 * References in code (fenced blocks, inline code spans: ./markdown-code.ts)
 * are text, never found.
 */
import { type LineCode, proseRanges } from "./markdown-code.js";

/** `at-line`: `@path/file.md` alone on a line; `kiro-file`: `#[[file:path]]`; `gemini-import`: `@path` after a blank, anywhere. */
export type ReferenceSyntax = "at-line" | "kiro-file" | "gemini-import";

/** The syntaxes of the plugin's own folders (a source that says nothing). */
export const REFERENCE_SYNTAXES: readonly ReferenceSyntax[] = ["at-line", "kiro-file"];

/** A reference in one line: where it is written, the path it names, and its syntax. */
export interface FoundReference {
  start: number;
  end: number;
  path: string;
  /** As written, for warnings: `@path`, `#[[file:path]]`. */
  written: string;
  syntax: ReferenceSyntax;
  /** A word that may name a file (`@pytest.mark.parametrize`): followed only when it names one, else text, silently. */
  onlyIfFile?: true;
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
    while (end < line.length && !isBlank(line[end])) end++;
    // A path that runs on into a code span is not one: it would end in code.
    if (end > to) break;
    const path = line.slice(at + 1, end);
    const kind = importKind(path);
    if (kind !== undefined) {
      const reference: FoundReference = { start: at, end, path, written: `@${path}`, syntax: "gemini-import" };
      if (kind === "maybe") reference.onlyIfFile = true;
      found.push(reference);
    }
    at = end - 1;
  }
  return found;
}

/** Punctuation a sentence puts after a path; Gemini keeps it in the path, the test of its shape does not. */
const TRAILING = new Set(".,;:!?)]}>'\"*");
/** Characters a file name may hold but a path written in prose hardly does: code (`@app.get("/users")`). */
const UNLIKE_PATH = /["'()<>[\]{}|*?=,;:]/;
/** Extensions of files a rule imports (text, configuration, code), for a name with no `/`: `@pytest.mark.parametrize` is not one. */
const FILE_EXTENSIONS = new Set(
  (
    "md mdc mdx markdown txt rst adoc json jsonc json5 yaml yml toml ini cfg conf env xml csv tsv html htm " +
    "css scss sass less js mjs cjs jsx ts mts cts tsx vue svelte astro py pyi ipynb rb go rs java kt kts scala " +
    "swift c h cc cpp cxx hpp cs php pl lua dart ex exs erl hs clj sql graphql gql proto prisma tf hcl sh bash " +
    "zsh fish ps1 gradle"
  ).split(" "),
);

/**
 * Whether Gemini's import word `path` is a reference here: `sure`, `maybe`
 * (only if it names a file), or not (text).
 */
function importKind(path: string): "sure" | "maybe" | undefined {
  if (!/^[./A-Za-z]/.test(path) || path.includes("://")) return undefined;
  // A loop, not /[…]+$/: that one is quadratic on a long run of punctuation followed by a letter.
  let length = path.length;
  while (length > 0 && TRAILING.has(path[length - 1] as string)) length--;
  const bare = path.slice(0, length);
  if (bare === "") return undefined;
  const last = bare.slice(bare.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  const slash = bare.includes("/");
  if (!slash && dot <= 0) return bare.startsWith(".") ? "sure" : undefined;
  if (bare.startsWith(".") || bare.startsWith("/")) return "sure";
  const extension = dot > 0 ? last.slice(dot + 1) : "";
  const named = slash ? /^[A-Za-z0-9]+$/.test(extension) : FILE_EXTENSIONS.has(extension.toLowerCase());
  return named && !UNLIKE_PATH.test(bare) ? "sure" : "maybe";
}

function looksLikePath(token: string): boolean {
  const last = token.slice(token.lastIndexOf("/") + 1);
  return last !== "." && last !== ".." && /\.[A-Za-z0-9]+$/.test(last);
}
