/**
 * File references in a rule's text, replaced by the referenced file's text:
 * - `@path/to/file.md` alone on a line (the path's last part has an
 *   extension, so `@rule-name` mentions are left alone);
 * - Kiro's `#[[file:path]]`, anywhere in a line.
 * Paths are relative to the file that holds the reference. References nest
 * up to `maxDepth` (5) levels; lines inside ``` / ~~~ code fences are never
 * expanded.
 *
 * Safety: a reference is followed only when the path as written and the
 * file's real path (symlinks resolved) lie inside the folders its rule may
 * reach (src/sources/trust.ts: a repository's rule, the repository only; a
 * user's rule, the user's rules and config folders). Anything else
 * (outside, missing, a cycle, too deep, too large) is left as text, with a
 * warning.
 *
 * Pure: all reading goes through the `read` callback.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { inside, type Trust } from "../sources/trust.js";
import { splitFrontMatter } from "./front-matter.js";
import { ruleWarning, type FactsWithout, type RuleWarning, type WarningFacts } from "./warnings.js";

export type RealPathResult = { ok: true; realPath: string } | { ok: false; missing: boolean; reason: string };
export type ReadResult = { ok: true; text: string } | { ok: false; reason: string };

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
const KIRO = /#\[\[file:([^\]\n]+)\]\]/g;
const FENCE = /^\s*(```|~~~)/;

/** Cheap test: could `text` hold a reference at all? */
export function mayHaveReferences(text: string): boolean {
  return text.includes("#[[file:") || (text.includes("@") && /^\s*@\S+\.\w+\s*$/m.test(text));
}

export async function expandReferences(text: string, options: ReferenceOptions): Promise<ExpandedText> {
  const state: State = {
    options,
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
  maxDepth: number;
  warnings: RuleWarning[];
  included: string[];
  bytes: number;
}

async function expand(text: string, file: string, chain: string[], depth: number, state: State): Promise<string> {
  const lines = text.split("\n");
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fenceMark = FENCE.exec(line)?.[1];
    if (fenceMark) {
      if (fence === undefined) fence = fenceMark;
      else if (fence === fenceMark) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const at = AT_LINE.exec(line);
    if (at && looksLikePath(at[2] as string)) {
      const included = await include(at[2] as string, `@${at[2]}`, file, chain, depth, state);
      if (included !== undefined) lines[i] = included;
      continue;
    }
    if (!line.includes("#[[file:")) continue;
    let out = "";
    let last = 0;
    for (const match of line.matchAll(KIRO)) {
      const index = match.index ?? 0;
      out += line.slice(last, index);
      const included = await include((match[1] as string).trim(), match[0], file, chain, depth, state);
      out += included ?? match[0];
      last = index + match[0].length;
    }
    lines[i] = out + line.slice(last);
  }
  return lines.join("\n");
}

/** The referenced file's expanded text, or undefined (with a warning) to leave the reference as written. */
async function include(ref: string, written: string, file: string, chain: string[], depth: number, state: State): Promise<string | undefined> {
  /** Leaves the reference as written, saying why. */
  const warn = (facts: FactsWithout<"reference">) => {
    state.warnings.push(ruleWarning(file, { ...facts, reference: written } as WarningFacts));
    return undefined;
  };
  if (depth >= state.maxDepth) return warn({ code: "reference-too-deep", maxDepth: state.maxDepth });
  const target = isAbsolute(ref) ? resolve(ref) : resolve(dirname(file), ref);
  const trust = state.options.trust;
  if (!inside(target, state.options.allowed)) return warn({ code: "reference-outside", target, trust });
  const real = await state.options.realpath(target);
  if (!real.ok) return warn(real.missing ? { code: "reference-missing", target } : { code: "reference-unreadable", reason: real.reason });
  const realPath = real.realPath;
  if (!inside(realPath, state.options.allowedReal)) return warn({ code: "reference-leads-outside", realPath, trust });
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

function looksLikePath(token: string): boolean {
  const last = token.slice(token.lastIndexOf("/") + 1);
  return last !== "." && last !== ".." && /\.[A-Za-z0-9]+$/.test(last);
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
