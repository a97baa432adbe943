/**
 * Splits a rule file into YAML front matter and body with gray-matter, and
 * refuses every front matter language but YAML: gray-matter would evaluate
 * `---js` / `---javascript` blocks, and rule files are data, never code.
 */
import matter from "gray-matter";

export type FrontMatter =
  | { ok: true; data: Record<string, unknown>; body: string; bodyLine: number }
  | { ok: false; line?: number; reason: string };

const OPENING = /^---([^\n]*)(\n|$)/;
const CLOSING = /\n---[ \t]*(?=\n|$)/;

/** Every engine but YAML throws before looking at its block, so nothing can run. */
function refuse(language: string) {
  return () => {
    throw new Error(`front matter language "${language}" is refused`);
  };
}

const yamlEngine = (matter as unknown as { engines: { yaml: { parse: (s: string) => object } } }).engines.yaml;
const engines = {
  yaml: (block: string) => yamlEngine.parse(block),
  javascript: refuse("javascript"),
  js: refuse("js"),
  coffee: refuse("coffee"),
  coffeescript: refuse("coffeescript"),
  cson: refuse("cson"),
  json: refuse("json"),
  toml: refuse("toml"),
};

/** `text` is decoded, with line endings already normalised to LF. */
export function splitFrontMatter(text: string): FrontMatter {
  const opening = OPENING.exec(text);
  if (!opening) return { ok: true, data: {}, body: text, bodyLine: 1 };
  const language = (opening[1] ?? "").trim();
  if (language.startsWith("-")) return { ok: true, data: {}, body: text, bodyLine: 1 }; // `----` is a Markdown rule, not a delimiter
  if (language !== "" && language !== "yaml" && language !== "yml") {
    return { ok: false, line: 1, reason: `front matter is marked "${language}"; only YAML front matter is read, and nothing in it was run` };
  }
  // Search from the opening's newline so an empty block (`---\n---`) closes too.
  const afterOpening = opening[0].length - 1;
  const closing = CLOSING.exec(text.slice(afterOpening));
  if (!closing || opening[2] === "") {
    return { ok: false, line: 1, reason: "front matter opened with --- on line 1 is never closed by a --- line" };
  }
  const blockEnd = afterOpening + closing.index;
  const block = text.slice(opening[0].length, Math.max(blockEnd, opening[0].length));
  const after = text.slice(blockEnd + closing[0].length);
  const bodyLine = text.slice(0, blockEnd + closing[0].length).split("\n").length + 1;
  try {
    const file = matter(`---\n${quoteBareGlobs(block)}\n---${after}`, { engines });
    const data = file.data as unknown;
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      return { ok: false, line: 2, reason: "front matter is not a list of `key: value` pairs" };
    }
    return { ok: true, data: data as Record<string, unknown>, body: file.content, bodyLine };
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, reason: "front matter is nested too deeply to read" };
    const mark = (error as { mark?: { line?: number } }).mark;
    // gray-matter hands js-yaml the block from the end of line 1, so its 0-based lines are off by one.
    const line = typeof mark?.line === "number" ? mark.line + 1 : undefined;
    const reason = (error as { reason?: string }).reason ?? (error as Error).message;
    return { ok: false, line, reason: `front matter is not valid YAML (${reason.split("\n")[0]})` };
  }
}

/**
 * Cursor writes `globs: *.ts, src/**` unquoted, which YAML reads as an alias
 * (`*`) or a flow mapping (`{`). Quote such values of glob keys so the files
 * users already have keep working.
 */
function quoteBareGlobs(block: string): string {
  return block.replace(
    /^(globs|paths|applyTo|fileMatchPattern)([ \t]*:[ \t]*)([*{!&%@`][^\n]*)$/gm,
    (_all, key: string, separator: string, value: string) => `${key}${separator}'${value.trimEnd().replace(/'/g, "''")}'`,
  );
}
