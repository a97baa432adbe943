/**
 * What the formats share: which file names are rule files, and the helpers
 * that map a tool's front matter to this plugin's keys.
 */
import type { FrontMatterFacts, MapperWarn } from "../discover/source.js";
import { codeMask } from "../rule/markdown-code.js";
import { readList } from "../conditions/front-matter-list.js";

export const MARKDOWN = (name: string) => /\.md$/i.test(name);

/** Keys other tools scope a rule with that Claude Code and Cline do not read: they read `paths` only. */
const NOT_PATHS = ["globs", "applyTo", "fileMatchPattern", "alwaysApply"];

/** `keys` of `data` its tool does not read, each with a warning naming the key it reads instead; they are dropped. */
export function ignoredByTool(
  data: Record<string, unknown>,
  keys: readonly string[],
  facts: { tool: string; reads: string; alwaysOn: boolean },
  warn: MapperWarn,
  front: FrontMatterFacts,
): Record<string, unknown> {
  const ignored = keys.filter((key) => data[key] !== undefined && data[key] !== null);
  for (const key of ignored) warn({ code: "key-ignored-by-tool", key, ...facts, line: front.lineOf(key) });
  return ignored.length === 0 ? data : without(data, ...ignored);
}

/**
 * Front matter for a tool that reads only `paths` (Claude Code, Cline): the
 * keys it ignores are ignored here too, with a warning naming them, so a rule
 * without `paths` is always on there and here. The plugin's own keys
 * (`keywords`, `priority`, …) are kept: nothing in those tools reads them,
 * so only someone writing for this plugin puts them there.
 */
export function readPathsOnly(
  data: Record<string, unknown>,
  tool: string,
  warn: MapperWarn,
  front: FrontMatterFacts,
): Record<string, unknown> {
  const paths = anchoredAtRoot(data.paths);
  const alwaysOn =
    (readList(data.paths) ?? []).length === 0 &&
    (readList(data.keywords) ?? []).length === 0 &&
    (readList(data.topics) ?? []).length === 0;
  const read = ignoredByTool(data, NOT_PATHS, { tool, reads: "paths", alwaysOn }, warn, front);
  return paths === undefined ? read : { ...read, paths };
}

/**
 * Globs as tools that match them against the whole project-relative path
 * read them (Claude Code, Cline, Copilot: `*.md` is "Markdown files in the
 * project root"): one without a slash is anchored at the root (`./*.md`),
 * where this plugin's own globs match at any depth. Undefined when the value
 * has no such glob or is not a list (the common reader reports that).
 */
export function anchoredAtRoot(value: unknown): string[] | undefined {
  const globs = readList(value);
  if (globs === undefined || !globs.some(matchesAtAnyDepth)) return undefined;
  return globs.map((glob) => {
    if (!matchesAtAnyDepth(glob)) return glob;
    return glob.startsWith("!") ? `!./${glob.slice(1)}` : `./${glob}`;
  });
}

const matchesAtAnyDepth = (glob: string) => !glob.includes("/");

/** How a `paths`-only tool names what a rule is: scoped by `paths`, or always. */
export function pathsType(data: Record<string, unknown>): string {
  return (readList(data.paths) ?? []).length > 0 ? "paths" : "always";
}

/** A rule's name (its file's) and its body: what a rule is offered by when it has no description. */
export interface NamedText {
  name: string;
  body: string;
}

/** The front matter has a description with some text in it. */
export function hasDescription(data: Record<string, unknown>): boolean {
  return typeof data.description === "string" && data.description.trim() !== "";
}

/**
 * A rule the model picks by relevance (Kiro `auto`, Windsurf
 * `model_decision`), mapped to `mapped`: without a description of its own
 * (in `data`, as written), it is listed by `describedByName`.
 */
export function describedOrNamed(
  mapped: Record<string, unknown>,
  data: Record<string, unknown>,
  rule: NamedText,
  toolName = "",
): Record<string, unknown> {
  return hasDescription(data) ? mapped : { ...mapped, description: describedByName(rule, toolName) };
}

/**
 * What a rule the model picks by relevance is listed by when it has no
 * description: the tool's own `name` when it differs from the file's, then
 * the body's first heading; else the name alone.
 */
function describedByName(rule: NamedText, toolName = ""): string {
  const named = toolName !== "" && toolName !== rule.name ? toolName : "";
  const heading = firstHeading(rule.body);
  if (heading && named) return `${named}: ${heading}`;
  return heading ?? (named || rule.name);
}

/** The text of the first ATX heading (`# Title`) outside code fences. */
function firstHeading(body: string): string | undefined {
  const lines = body.split("\n");
  const mask = codeMask(lines);
  for (const [i, line] of lines.entries()) {
    if (mask[i]?.fenced) continue;
    const text = /^ {0,3}#{1,6}[ \t]+(.*)$/.exec(line)?.[1];
    if (text === undefined) continue;
    // The closing `#`s and blanks, taken off by hand: a pattern for them would backtrack on a long line of them.
    let end = text.length;
    while (end > 0 && " \t#".includes(text[end - 1] as string)) end--;
    const heading = text.slice(0, end).trim();
    if (heading) return heading;
  }
  return undefined;
}

/** Removes `keys` from a copy of `data`. */
export function without(data: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = { ...data };
  for (const key of keys) delete copy[key];
  return copy;
}
