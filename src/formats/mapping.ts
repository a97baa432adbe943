/**
 * What the formats share: which file names are rule files, and the helpers
 * that map a tool's front matter to this plugin's keys.
 */
import type { FrontMatterFacts, MapperWarn } from "../discover/source.js";
import { codeMask } from "../rule/markdown-code.js";
import { readList } from "../conditions/front-matter-list.js";
import type { NowApplies } from "../conditions/lost.js";
import { globProblem } from "../glob/rule-glob.js";

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
  const keywords = (readList(data.keywords) ?? []).length > 0 || (readList(data.topics) ?? []).length > 0;
  const alwaysOn = (readList(data.paths) ?? []).length === 0 && !keywords;
  const read = ignoredByTool(data, NOT_PATHS, { tool, reads: "paths", alwaysOn }, warn, front);
  const paths = anchoredAtRoot(data.paths, tool);
  if (paths === undefined) return read;
  // Fail closed: a rule whose every glob was refused waits for its keywords, or to be asked for.
  const lost = paths.globs.length === 0;
  const nowApplies: NowApplies = keywords ? { onlyBy: "keywords" } : askedFor(data);
  warnRefused(paths.refused, tool, lost ? nowApplies : undefined, warn, front.lineOf("paths"));
  return lost ? { ...without(read, "paths"), alwaysApply: false } : { ...read, paths: paths.globs };
}

/** How a rule without triggers applies once it waits to be asked for: by its description, else when mentioned. */
export const askedFor = (data: Record<string, unknown>): NowApplies =>
  hasDescription(data) ? "on-request" : "when-mentioned";

/**
 * Globs as tools that match them against the whole project-relative path
 * read them (Claude Code, Cline, Copilot: `*.md` is "Markdown files in the
 * project root"): one without a slash is anchored at the root (`./*.md`),
 * where this plugin's own globs match at any depth. Leading `!`s are read as
 * "not" only where the tool's matcher does: Cline's picomatch, per glob, so
 * the glob after them is anchored (`!*.md` → `!./*.md`, `!!*.md` →
 * `!!./*.md`). Claude Code documents no negation and Copilot's matcher reads
 * a `!` as a character: there such a glob is `refused` (left out, with a
 * warning), never read as "every file but…". `!(…)` is an extglob, not a
 * negation, and a glob the plugin cannot use stays as written: its own
 * warning then quotes it. Undefined when nothing changes, or the value is
 * not a list (the common reader reports that).
 */
export function anchoredAtRoot(value: unknown, tool: string): { globs: string[]; refused: string[] } | undefined {
  const written = readList(value);
  if (written === undefined) return undefined;
  const globs: string[] = [];
  const refused: string[] = [];
  for (const glob of written) {
    const bangs = leadingNegation(glob);
    if (globProblem(glob) !== undefined) globs.push(glob);
    else if (bangs > 0 && !READS_NEGATION.has(tool)) refused.push(glob);
    else globs.push(glob.slice(0, bangs) + fromRoot(glob.slice(bangs)));
  }
  const changed = refused.length > 0 || globs.some((glob, i) => glob !== written[i]);
  return changed ? { globs, refused } : undefined;
}

/** The tools whose matcher reads leading `!`s as "not": Cline (picomatch, per glob). */
const READS_NEGATION = new Set(["Cline"]);

/** How many `!`s negate the glob: those before its first other character, except one opening `!(…)`. */
function leadingNegation(glob: string): number {
  let bangs = 0;
  while (glob[bangs] === "!" && glob[bangs + 1] !== "(") bangs++;
  return bangs;
}

const fromRoot = (glob: string) => (glob.includes("/") ? glob : `./${glob}`);

/** A warning for each glob its tool reads no negation in; `nowApplies` on the last when none of the key's is left. */
export function warnRefused(
  refused: readonly string[],
  tool: string,
  nowApplies: NowApplies | undefined,
  warn: MapperWarn,
  line: number | undefined,
): void {
  refused.forEach((glob, i) => {
    const last = i === refused.length - 1 ? nowApplies : undefined;
    warn({ code: "glob-unusable", glob, problem: `${tool} reads no "!" negation`, nowApplies: last, line });
  });
}

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
