/**
 * File references in a rule's text, replaced by the referenced file's text.
 * Each syntax (./reference-syntax.ts: `at-line`, `kiro-file`,
 * `gemini-import`) is expanded only for the formats that define it (the
 * `syntaxes` option; the others are plain text, with no warning).
 * A path is relative to the file that holds the reference. Kiro writes
 * `#[[file:…]]` relative to the workspace root, others relative to the
 * steering file: a relative `#[[file:…]]` that names no file next to its
 * file is looked up under each of the `roots` in turn (an absolute path is
 * not). Antigravity tries an absolute `@/path` as absolute, then from the
 * repository root: an absolute `gemini-import` that names no file is looked
 * up under each of the `roots` (a relative one is not). References nest up
 * to `maxDepth` (5) levels; each nested one is relative to the included
 * file first. References in code (fenced blocks, inline code spans:
 * ./markdown-code.ts) are text, never expanded or warned about.
 *
 * Safety: a reference is followed only when the path as written and the
 * file's real path (symlinks resolved) lie inside the folders its rule may
 * reach (./trust.ts: a repository's rule, the repository only; a
 * user's rule, the user's rules and config folders); each place a reference
 * is looked up in, the roots included, is checked alike. Anything else
 * (outside, missing, a cycle, too deep, too large) is left as text, with a
 * warning on the line of the file that holds the reference (for `text`
 * itself, the line in `text`: the caller knows where it starts in its file).
 * A Gemini-style word that only may be a path (`@types/node`) is followed
 * only when it names a file: missing, or a folder, it is text, silently.
 *
 * Pure: all reading goes through the `read` callback.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { inside, type ReferenceReach } from "./trust.js";
import { splitFrontMatter } from "./front-matter.js";
import { codeMask, type LineCode } from "./markdown-code.js";
import { type FoundReference, REFERENCE_SYNTAXES, type ReferenceSyntax, referencesInLine } from "./reference-syntax.js";
import { ruleWarning, type FactsWithout, type RuleWarning, type WarningFacts } from "./warnings.js";

export type RealPathResult = { ok: true; realPath: string } | { ok: false; missing: boolean; reason: string };
/** `notAFile`: the path names a folder or another non-file, not a file to read. */
export type ReadResult = { ok: true; text: string } | { ok: false; reason: string; notAFile?: boolean };

export interface ReferenceOptions {
  /** Absolute path of the file the text comes from (as found: references are relative to it). */
  file: string;
  /** Its real path, to catch a reference back to it. */
  realFile: string;
  /** Folders a reference as written may point into. */
  allowed: readonly string[];
  /** Folders the referenced file's real path (symlinks resolved) must lie in. */
  allowedReal: readonly string[];
  /** Whose folders those are, for warnings: the repository's, the user's rules and config folders, or a pack. */
  trust: ReferenceReach;
  /** The real path of a file (symlinks resolved); `missing` when it does not exist. */
  realpath: (path: string) => Promise<RealPathResult>;
  /** The decoded text of a file, by its real path; only called for a file inside the allowed folders. */
  read: (realPath: string) => Promise<ReadResult>;
  /** The syntaxes the rule's format defines; the others are plain text. Default: both. */
  syntaxes?: readonly ReferenceSyntax[];
  /** Folders a relative `#[[file:…]]` (or an absolute `gemini-import`) is looked up under, in order, when it names no file where written (Kiro's workspace root, Antigravity's repository root). */
  roots?: readonly string[];
  /** Levels of references followed; default 5. */
  maxDepth?: number;
  /** The expanded text's size limit in UTF-8 bytes; past it, further references stay as text. Default: none. */
  maxBytes?: number;
}

interface ExpandedText {
  text: string;
  warnings: RuleWarning[];
  /** Real paths of the files included, in order, without repeats. */
  included: string[];
}

const MAX_REFERENCE_DEPTH = 5;
/** References tried per rule, nested ones included: each costs a look-up on disk, and a rule is untrusted text. */
const MAX_REFERENCES = 256;

export async function expandReferences(text: string, options: ReferenceOptions): Promise<ExpandedText> {
  const syntaxes = options.syntaxes ?? REFERENCE_SYNTAXES;
  const state: State = {
    options,
    syntaxes,
    maxDepth: options.maxDepth ?? MAX_REFERENCE_DEPTH,
    warnings: [],
    included: [],
    bytes: byteLength(text),
    tried: 0,
  };
  const expanded = await expand(text, { file: options.file, firstLine: 1 }, [options.realFile], 0, state);
  return { text: expanded, warnings: state.warnings, included: state.included };
}

interface State {
  options: ReferenceOptions;
  syntaxes: readonly ReferenceSyntax[];
  maxDepth: number;
  warnings: RuleWarning[];
  included: string[];
  bytes: number;
  /** References looked up so far; past MAX_REFERENCES the rest stay as text, said once. */
  tried: number;
  saidTooMany?: boolean;
}

/** A text to expand: the file it comes from, and the line of that file it starts at. */
interface Holder {
  file: string;
  firstLine: number;
}

async function expand(text: string, holder: Holder, chain: string[], depth: number, state: State): Promise<string> {
  const lines = text.split("\n");
  const mask = codeMask(lines);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const references = referencesInLine(line, mask[i] as LineCode, state.syntaxes);
    if (references.length === 0) continue;
    let out = "";
    let last = 0;
    for (const reference of references) {
      out += line.slice(last, reference.start);
      const at = { file: holder.file, line: holder.firstLine + i };
      const included = await include(reference, at, chain, depth, state);
      out += included ?? reference.written;
      last = reference.end;
    }
    lines[i] = out + line.slice(last);
  }
  return lines.join("\n");
}

/** The referenced file's expanded text, or undefined (with a warning, unless it is no file) to leave it as written. */
async function include(
  reference: FoundReference,
  at: { file: string; line: number },
  chain: string[],
  depth: number,
  state: State,
): Promise<string | undefined> {
  const { path: ref, written, syntax, onlyIfFile } = reference;
  /** Leaves the reference as written, saying why. */
  const warn = (facts: FactsWithout<"reference">) => {
    state.warnings.push(ruleWarning(at.file, { ...facts, reference: written, line: at.line } as WarningFacts));
    return undefined;
  };
  // Past the bound a word that may be a path stays text silently, as one that names no file does; a reference is said once.
  if (++state.tried > MAX_REFERENCES) {
    if (onlyIfFile || state.saidTooMany) return undefined;
    state.saidTooMany = true;
    return warn({ code: "reference-too-many", maxReferences: MAX_REFERENCES });
  }
  // A word that may be a path is looked up even past the depth: too deep is said only of a file.
  if (depth >= state.maxDepth && !onlyIfFile) return warn({ code: "reference-too-deep", maxDepth: state.maxDepth });
  const places = placesOf(ref, at.file, syntax, state.options.roots);
  const found = await locate(places, state.options, syntax === "gemini-import" && places.length > 1);
  if (!found.ok) return onlyIfFile && found.facts.code === "reference-missing" ? undefined : warn(found.facts);
  if (depth >= state.maxDepth) return warn({ code: "reference-too-deep", maxDepth: state.maxDepth });
  const { target, realPath } = found;
  if (chain.includes(realPath)) return warn({ code: "reference-cycle", chain: [...chain, realPath] });
  const read = await state.options.read(realPath);
  if (!read.ok) {
    if (onlyIfFile && read.notAFile) return undefined;
    return warn({ code: "reference-unreadable", reason: read.reason });
  }
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
  const holder = { file: target, firstLine: firstLineOf(read.text, body) ?? 1 };
  return expand(body, holder, [...chain, realPath], depth + 1, state);
}

/**
 * The line of `text` that `tail` (its end, trimmed: a rule's body) starts
 * at; undefined when `text` does not end with it (it changed since).
 */
export function firstLineOf(text: string, tail: string): number | undefined {
  const end = text.trimEnd();
  if (!end.endsWith(tail)) return undefined;
  let line = 1;
  const start = end.length - tail.length;
  for (let at = text.indexOf("\n"); at >= 0 && at < start; at = text.indexOf("\n", at + 1)) line++;
  return line;
}

/**
 * Where a reference may lead, in order: where written (next to its file, or
 * the absolute path); then under each root, for a relative Kiro reference or
 * an absolute Gemini-style import.
 */
function placesOf(ref: string, file: string, syntax: ReferenceSyntax, roots: readonly string[] = []): string[] {
  const absolute = isAbsolute(ref);
  const places = [absolute ? resolve(ref) : resolve(dirname(file), ref)];
  const underRoots = absolute ? syntax === "gemini-import" : syntax === "kiro-file";
  if (!underRoots) return places;
  for (const root of roots) {
    const place = absolute ? resolve(root, `.${ref}`) : resolve(root, ref);
    if (!places.includes(place)) places.push(place);
  }
  return places;
}

type Located = { ok: true; target: string; realPath: string } | { ok: false; facts: FactsWithout<"reference"> };

/**
 * The first of `places` that exists. Each is checked as the only one would
 * be: outside the allowed folders it is refused unread, ending the search
 * (a fallback never reaches further than the reference itself may); a file
 * that exists but leads outside is refused, not passed over. With
 * `passOutside` (an absolute path that is also looked up from the roots), a
 * place outside is passed over unread instead, and refused only when every
 * place is outside.
 */
async function locate(places: readonly string[], options: ReferenceOptions, passOutside: boolean): Promise<Located> {
  const { trust } = options;
  const tried: string[] = [];
  for (const target of places) {
    if (!inside(target, options.allowed)) {
      if (passOutside) continue;
      return { ok: false, facts: { code: "reference-outside", target, trust } };
    }
    tried.push(target);
    const real = await options.realpath(target);
    if (!real.ok) {
      if (real.missing) continue;
      return { ok: false, facts: { code: "reference-unreadable", reason: real.reason } };
    }
    if (!inside(real.realPath, options.allowedReal))
      return { ok: false, facts: { code: "reference-leads-outside", realPath: real.realPath, trust } };
    return { ok: true, target, realPath: real.realPath };
  }
  if (tried.length === 0)
    return { ok: false, facts: { code: "reference-outside", target: places[0] as string, trust } };
  const [target, ...alsoTried] = tried as [string, ...string[]];
  return { ok: false, facts: { code: "reference-missing", target, ...(alsoTried.length > 0 ? { alsoTried } : {}) } };
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
