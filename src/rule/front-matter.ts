/**
 * Splits a rule file into YAML front matter and body. The closing `---` line
 * is found here, by one rule, and the block between is handed to js-yaml's
 * safe loader (gray-matter's YAML engine) directly: gray-matter's own split
 * would find a different end (a `---x: 1` line) and turn the rest of the
 * front matter into rule text (a block of plain `key: value` lines is read
 * by plain-yaml.ts, as js-yaml would read it). Every front matter language but YAML is
 * refused: gray-matter would evaluate `---js` blocks, and rule files are
 * data, never code.
 */
import matter from "gray-matter";
import { KINDS } from "../conditions/list.js";
import { readPlainYaml } from "./plain-yaml.js";

/** Why a file's front matter cannot be read: the codes of the warnings that skip its rule. */
export type FrontMatterProblem =
  | { code: "front-matter-language"; language: string }
  | { code: "front-matter-unclosed" }
  | { code: "front-matter-stray-delimiter"; strayLine: number }
  | { code: "front-matter-too-deep" }
  | { code: "yaml-invalid"; reason: string }
  | { code: "front-matter-not-mapping" };

/**
 * `body` and `bodyLine`: the text after the closing `---`, when the block is
 * closed but what is between cannot be read (a tool that reads the file
 * anyway has its rule text there).
 */
type Failure = { ok: false; line?: number; problem: FrontMatterProblem; body?: string; bodyLine?: number };

export type FrontMatter = { ok: true; data: Record<string, unknown>; body: string; bodyLine: number } | Failure;

const OPENING = /^---([^\n]*)(\n|$)/;
/** The only closing line: exactly `---`, with optional trailing spaces or tabs. */
const CLOSING = /^---[ \t]*$/;

/**
 * js-yaml's `safeLoad`: no `!!js/function` or other code-bearing tags. It
 * keeps an alias as a second reference to its anchor's value, never a copy,
 * so a "billion laughs" block costs its own size, and it caps merge-key
 * (`<<`) copying at 10,000 keys, so neither expands on parse.
 */
const yaml = (matter as unknown as { engines: { yaml: { parse: (s: string) => unknown } } }).engines.yaml;

type Closing =
  | { found: "closing"; start: number; end: number; line: number }
  | { found: "stray"; line: number }
  | { found: "none" };

/** The first line from `from` (file line 2) that starts with `---`: the closing line, or a stray one. */
function findClosing(text: string, from: number): Closing {
  for (let start = from, line = 2; start <= text.length; line++) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    if (text.startsWith("---", start)) {
      return CLOSING.test(text.slice(start, end)) ? { found: "closing", start, end, line } : { found: "stray", line };
    }
    if (newline === -1) break;
    start = newline + 1;
  }
  return { found: "none" };
}

/** `text` is decoded, with line endings already normalised to LF. */
export function splitFrontMatter(text: string): FrontMatter {
  const opening = OPENING.exec(text);
  if (!opening) return { ok: true, data: {}, body: text, bodyLine: 1 };
  const language = (opening[1] ?? "").trim();
  if (language.startsWith("-")) return { ok: true, data: {}, body: text, bodyLine: 1 }; // `----` is a Markdown rule, not a delimiter
  if (language !== "" && language !== "yaml" && language !== "yml") {
    return { ok: false, line: 1, problem: { code: "front-matter-language", language } };
  }
  const unclosed: Failure = { ok: false, line: 1, problem: { code: "front-matter-unclosed" } };
  if (opening[2] === "") return unclosed;
  const closing = findClosing(text, opening[0].length);
  if (closing.found === "none") return unclosed;
  if (closing.found === "stray") {
    // Another reader could take this line for the end of the front matter; fail closed rather than guess.
    return {
      ok: false,
      line: closing.line,
      problem: { code: "front-matter-stray-delimiter", strayLine: closing.line },
    };
  }
  // The block ends before the newline that precedes the closing line (an empty block has none).
  const block = text.slice(opening[0].length, Math.max(closing.start - 1, opening[0].length));
  const after = text.slice(closing.end);
  const body = after.startsWith("\n") ? after.slice(1) : after;
  const parsed = parseBlock(block);
  if (!parsed.ok) return { ...parsed, body, bodyLine: closing.line + 1 };
  return { ok: true, data: parsed.data, body, bodyLine: closing.line + 1 };
}

/** A blank line or a `#` comment: a block of only these is read by js-yaml as null, but it is front matter with no keys. */
const NOTHING = /^[ \t]*(?:#.*)?$/;

function parseBlock(block: string): { ok: true; data: Record<string, unknown> } | Failure {
  // Most blocks are a few `key: value` lines: read without js-yaml, as it would read them.
  const plain = readPlainYaml(block);
  if (plain) return { ok: true, data: plain };
  if (block.split("\n").every((line) => NOTHING.test(line))) return { ok: true, data: {} };
  let data: unknown;
  try {
    data = yaml.parse(quoteBareGlobs(block));
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, problem: { code: "front-matter-too-deep" } };
    const mark = (error as { mark?: { line?: number } }).mark;
    // The block starts on file line 2, and js-yaml counts lines from 0.
    const line = typeof mark?.line === "number" ? mark.line + 2 : undefined;
    const reason = (error as { reason?: string }).reason ?? (error as Error).message;
    return { ok: false, line, problem: { code: "yaml-invalid", reason: reason.split("\n")[0] ?? reason } };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, line: 2, problem: { code: "front-matter-not-mapping" } };
  }
  return { ok: true, data: data as Record<string, unknown> };
}

/** The keys of kinds whose values users write bare (conditions/contract.ts `bareValues`: globs). */
const BARE_KEYS = KINDS.filter((kind) => kind.bareValues).flatMap((kind) => kind.keys);
const BARE_VALUE = new RegExp(`^(${BARE_KEYS.join("|")})([ \\t]*:[ \\t]*)([*{!&%@\`][^\\n]*)$`, "gm");

/**
 * Cursor writes `globs: *.ts, src/**` unquoted, which YAML reads as an alias
 * (`*`) or a flow mapping (`{`). Quote such values of glob keys so the files
 * users already have keep working.
 */
function quoteBareGlobs(block: string): string {
  return block.replace(
    BARE_VALUE,
    (_all, key: string, separator: string, value: string) =>
      `${key}${separator}'${value.trimEnd().replace(/'/g, "''")}'`,
  );
}
