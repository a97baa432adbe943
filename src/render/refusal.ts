/**
 * What the model reads when a call broke a rule that forbids: the refusal a
 * blocked call fails with, or the note a `warn` rule puts into a call's
 * result. Each names the rule, the forbidden pattern and the offending line;
 * a rule whose text the window does not hold yet comes with its text. Pure.
 *
 * A host that keeps only the refusal's text (OpenCode 1 stores a failed
 * call's error, not its metadata) reads the rules back with `refusedRulesIn`.
 */
import type { Violation } from "../enforce/violations.js";
import type { Rule } from "../rule/rule.js";
import { renderRulesMessage } from "./message.js";
import { shownText } from "./shown-text.js";

/** A broken rule as the model is told of it. */
type BrokenRule = Pick<Violation, "rule" | "pattern" | "file" | "line" | "lineNumber" | "shadowedBy">;

/** The offending line is cut to this many characters. */
export const MAX_SHOWN_LINE = 200;

const REFUSAL_HEADER =
  "opencode-rulebook refused this call before it ran: it breaks a rule of this project. Nothing was written and nothing ran. " +
  "Change the call so that it does not add what the rule forbids, then make it again.";

const WARNING_HEADER =
  "opencode-rulebook: this call breaks a rule of this project (it ran; the rule asks you to put it right):";

/**
 * The refusal of a blocked call. `withText`: the rules whose text the
 * window lacks (given here, once per window); the others are named only.
 */
export function refusalText(broken: readonly BrokenRule[], withText: ReadonlySet<string>): string {
  return brokenText(REFUSAL_HEADER, broken, withText);
}

/** The note a `warn` rule puts after a call's result (rule/warnings.ts's warningText is a rule file's problem). */
export function brokenRulesWarning(broken: readonly BrokenRule[], withText: ReadonlySet<string>): string {
  return brokenText(WARNING_HEADER, broken, withText);
}

function brokenText(header: string, broken: readonly BrokenRule[], withText: ReadonlySet<string>): string {
  const lines = broken.map(brokenLine);
  const given = uniqueRules(broken).filter((rule) => withText.has(rule.name));
  const texts =
    given.length === 0
      ? ""
      : `\n\n${renderRulesMessage(given, { header: given.length === 1 ? "The rule:" : "The rules:" })}`;
  return `${header}\n${lines.join("\n")}${texts}`;
}

/** `- Rule "no-console" forbids `console.log(` in "src/a.ts" line 3: console.log("x")`. */
function brokenLine({ rule, pattern, file, line, lineNumber, shadowedBy }: BrokenRule): string {
  const where =
    file === undefined
      ? "in the command"
      : `in ${JSON.stringify(file)}${lineNumber === undefined ? "" : ` line ${lineNumber}`}`;
  const shadow = shadowedBy
    ? ` (the user's rule ${shownText(rule.displayPath)}: ${shownText(shadowedBy.displayPath)} shadows its text, not what it forbids)`
    : "";
  return `- Rule ${JSON.stringify(rule.name)} forbids ${codeSpan(shownLine(pattern.written))} ${where}: ${shownLine(line)}${shadow}`;
}

/** A line as the model is shown it: control characters as `?`, cut to `MAX_SHOWN_LINE` characters. */
export function shownLine(line: string): string {
  const clean = shownText(line).trim();
  return clean.length > MAX_SHOWN_LINE ? `${clean.slice(0, MAX_SHOWN_LINE)}…` : clean;
}

/** A pattern in backticks, with as many as it needs to hold its own. */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  return longest === 0 ? `${fence}${text}${fence}` : `${fence} ${text} ${fence}`;
}

/** The rules broken, each once, in the order first broken. */
export function uniqueRules(broken: readonly BrokenRule[]): Rule[] {
  const seen = new Map<string, Rule>();
  for (const { rule } of broken) if (!seen.has(rule.name)) seen.set(rule.name, rule);
  return [...seen.values()];
}

/** Our own line: the name, the pattern's code span (as many backticks closing it as opened it), then the file or the command. */
const BROKEN_LINE = /^- Rule ("(?:[^"\\\n]|\\.)*") forbids (`+).*?\2 in (?:("(?:[^"\\\n]|\\.)*")|the command)/;

/**
 * The rules a refusal (or a warning) names, each with the file of its first
 * line, read back from its text; none when the text is not the plugin's. Only
 * the lines right after the header count: a rule's text below them may hold
 * anything.
 */
export function refusedRulesIn(text: string): Array<{ name: string; file?: string }> {
  const header = [REFUSAL_HEADER, WARNING_HEADER].map((known) => text.indexOf(`${known}\n`)).find((at) => at >= 0);
  if (header === undefined) return [];
  const found = new Map<string, string | undefined>();
  const lines = text.slice(text.indexOf("\n", header) + 1).split("\n");
  for (const line of lines) {
    const match = BROKEN_LINE.exec(line);
    if (!match) break;
    const name = parseQuoted(match[1] as string);
    if (name === undefined || found.has(name)) continue;
    found.set(name, match[3] === undefined ? undefined : parseQuoted(match[3]));
  }
  return [...found].map(([name, file]) => (file === undefined ? { name } : { name, file }));
}

function parseQuoted(quoted: string): string | undefined {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
