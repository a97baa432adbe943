/**
 * File references in a rule's text, replaced by the referenced file's text.
 * Two syntaxes, each expanded only for the formats that define it (the
 * `syntaxes` option; the other is plain text, with no warning):
 * - `at-line`: `@path/to/file.md` alone on a line (the path's last part has
 *   an extension, so `@rule-name` mentions are left alone);
 * - `kiro-file`: Kiro's `#[[file:path]]`, anywhere in a line.
 * A path is relative to the file that holds the reference. Kiro writes
 * `#[[file:…]]` relative to the workspace root, others relative to the
 * steering file: a relative `#[[file:…]]` that names no file next to its
 * file is looked up under each of the `roots` in turn (an absolute path is
 * not). References nest up to `maxDepth` (5) levels; each nested one is
 * relative to the included file first. References in code (fenced blocks,
 * inline code spans: ./markdown-code.ts) are text, never expanded or warned
 * about.
 *
 * Safety: a reference is followed only when the path as written and the
 * file's real path (symlinks resolved) lie inside the folders its rule may
 * reach (src/sources/trust.ts: a repository's rule, the repository only; a
 * user's rule, the user's rules and config folders); each place a reference
 * is looked up in, the roots included, is checked alike. Anything else
 * (outside, missing, a cycle, too deep, too large) is left as text, with a
 * warning.
 *
 * Pure: all reading goes through the `read` callback.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { inside, type Trust } from "../discover/trust.js";
import { splitFrontMatter } from "./front-matter.js";
import { codeMask, type LineCode, proseRanges } from "./markdown-code.js";
import { ruleWarning, type FactsWithout, type RuleWarning, type WarningFacts } from "./warnings.js";

export type RealPathResult = { ok: true; realPath: string } | { ok: false; missing: boolean; reason: string };
export type ReadResult = { ok: true; text: string } | { ok: false; reason: string };

/** `at-line`: `@path/file.md` alone on a line; `kiro-file`: `#[[file:path]]`. */
export type ReferenceSyntax = "at-line" | "kiro-file";

export const REFERENCE_SYNTAXES: readonly ReferenceSyntax[] = ["at-line", "kiro-file"];

export interface ReferenceOptions {
  /** Absolute path of the file the text comes from (as found: references are relative to it). */
  file: string;
  /** Its real path, to catch a reference back to it. */
  realFile: string;
  /** Folders a reference as written may point into. */
  allowed: readonly string[];
  /** Folders the referenced file's real path (symlinks resolved) must lie in. */
  allowedReal: readonly string[];
  /** Whose folders those are, for warnings: the repository's, or the user's rules and config folders. */
  trust: Trust;
  /** The real path of a file (symlinks resolved); `missing` when it does not exist. */
  realpath: (path: string) => Promise<RealPathResult>;
  /** The decoded text of a file, by its real path; only called for a file inside the allowed folders. */
  read: (realPath: string) => Promise<ReadResult>;
  /** The syntaxes the rule's format defines; the others are plain text. Default: both. */
  syntaxes?: readonly ReferenceSyntax[];
  /** Folders a relative `#[[file:…]]` is looked up under, in order, when it names no file next to the file holding it (Kiro's workspace root). */
  roots?: readonly string[];
  /** Levels of references followed; default 5. */
  maxDepth?: number;
  /** The expanded text's size limit in UTF-8 bytes; past it, further references stay as text. Default: none. */
  maxBytes?: number;
}

export interface ExpandedText {
  text: string;
  warnings: RuleWarning[];
  /** Real paths of the files included, in order, without repeats. */
  included: string[];
}

export const MAX_REFERENCE_DEPTH = 5;

const AT_LINE = /^(\s*)@([^\s@][^\s]*)\s*$/;
const KIRO_OPEN = "#[[file:";

/** Cheap test: could `text` hold a reference of these syntaxes (default: both) at all? It may say yes for one in code. */
export function mayHaveReferences(text: string, syntaxes: readonly ReferenceSyntax[] = REFERENCE_SYNTAXES): boolean {
  if (syntaxes.includes("kiro-file") && text.includes(KIRO_OPEN)) return true;
  return syntaxes.includes("at-line") && text.includes("@") && text.split("\n").some((line) => atLinePath(line) !== undefined);
}

export async function expandReferences(text: string, options: ReferenceOptions): Promise<ExpandedText> {
  const syntaxes = options.syntaxes ?? REFERENCE_SYNTAXES;
  const state: State = {
    options,
    atLine: syntaxes.includes("at-line"),
    kiro: syntaxes.includes("kiro-file"),
    maxDepth: options.maxDepth ?? MAX_REFERENCE_DEPTH,
    warnings: [],
    included: [],
    bytes: byteLength(text),
  };
  const expanded = await expand(text, options.file, [options.realFile], 0, state);
  return { text: expanded, warnings: state.warnings, included: state.included };
}

interface State {
  options: ReferenceOptions;
  atLine: boolean;
  kiro: boolean;
  maxDepth: number;
  warnings: RuleWarning[];
  included: string[];
  bytes: number;
}

async function expand(text: string, file: string, chain: string[], depth: number, state: State): Promise<string> {
  const lines = text.split("\n");
  const mask = codeMask(lines);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const code = mask[i] as LineCode;
    if (code.fenced) continue;
    // An @path line holds only the path, so a code span on it lies in the path: code, not a reference.
    const at = state.atLine && code.spans.length === 0 ? atLinePath(line) : undefined;
    if (at !== undefined) {
      const included = await include(at, `@${at}`, file, false, chain, depth, state);
      if (included !== undefined) lines[i] = included;
      continue;
    }
    if (!state.kiro || !line.includes(KIRO_OPEN)) continue;
    let out = "";
    let last = 0;
    // Only in the prose between code spans: a reference cannot start, end or lie in code.
    for (const [from, to] of proseRanges(line, code)) {
      for (const match of kiroReferences(line.slice(from, to))) {
        const start = from + match.start;
        const written = line.slice(start, from + match.end);
        out += line.slice(last, start);
        const included = await include(match.path.trim(), written, file, true, chain, depth, state);
        out += included ?? written;
        last = from + match.end;
      }
    }
    lines[i] = out + line.slice(last);
  }
  return lines.join("\n");
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

/** The referenced file's expanded text, or undefined (with a warning) to leave the reference as written. */
async function include(ref: string, written: string, file: string, kiro: boolean, chain: string[], depth: number, state: State): Promise<string | undefined> {
  /** Leaves the reference as written, saying why. */
  const warn = (facts: FactsWithout<"reference">) => {
    state.warnings.push(ruleWarning(file, { ...facts, reference: written } as WarningFacts));
    return undefined;
  };
  if (depth >= state.maxDepth) return warn({ code: "reference-too-deep", maxDepth: state.maxDepth });
  const found = await locate(placesOf(ref, file, kiro, state.options.roots), state.options);
  if (!found.ok) return warn(found.facts);
  const { target, realPath } = found;
  if (chain.includes(realPath)) return warn({ code: "reference-cycle", chain: [...chain, realPath] });
  const read = await state.options.read(realPath);
  if (!read.ok) return warn({ code: "reference-unreadable", reason: read.reason });
  let body = read.text;
  if (/\.(md|mdc|markdown)$/i.test(target)) {
    const front = splitFrontMatter(body);
    if (front.ok) body = front.body;
  }
  body = body.trim();
  const size = byteLength(body);
  if (state.options.maxBytes !== undefined && state.bytes + size > state.options.maxBytes) {
    return warn({ code: "reference-too-large", maxBytes: state.options.maxBytes });
  }
  state.bytes += size;
  if (!state.included.includes(realPath)) state.included.push(realPath);
  return expand(body, target, [...chain, realPath], depth + 1, state);
}

/** Where a reference may lead, in order: next to its file, then (a relative Kiro reference) under each root. */
function placesOf(ref: string, file: string, kiro: boolean, roots: readonly string[] = []): string[] {
  if (isAbsolute(ref)) return [resolve(ref)];
  const places = [resolve(dirname(file), ref)];
  if (!kiro) return places;
  for (const root of roots) {
    const place = resolve(root, ref);
    if (!places.includes(place)) places.push(place);
  }
  return places;
}

type Located = { ok: true; target: string; realPath: string } | { ok: false; facts: FactsWithout<"reference"> };

/**
 * The first of `places` that exists. Each is checked as the only one would
 * be: outside the allowed folders it is refused unread, ending the search
 * (a fallback never reaches further than the reference itself may); a file
 * that exists but leads outside is refused, not passed over.
 */
async function locate(places: readonly string[], options: ReferenceOptions): Promise<Located> {
  const { trust } = options;
  for (const target of places) {
    if (!inside(target, options.allowed)) return { ok: false, facts: { code: "reference-outside", target, trust } };
    const real = await options.realpath(target);
    if (!real.ok) {
      if (real.missing) continue;
      return { ok: false, facts: { code: "reference-unreadable", reason: real.reason } };
    }
    if (!inside(real.realPath, options.allowedReal)) return { ok: false, facts: { code: "reference-leads-outside", realPath: real.realPath, trust } };
    return { ok: true, target, realPath: real.realPath };
  }
  const [target, ...alsoTried] = places as [string, ...string[]];
  return { ok: false, facts: { code: "reference-missing", target, ...(alsoTried.length > 0 ? { alsoTried } : {}) } };
}

function looksLikePath(token: string): boolean {
  const last = token.slice(token.lastIndexOf("/") + 1);
  return last !== "." && last !== ".." && /\.[A-Za-z0-9]+$/.test(last);
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
