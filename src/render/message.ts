/**
 * The text of a rules message. Pure. Its inverse, which only tests need, is
 * test/support/rules-message.ts.
 *
 * Structure: a `<rulebook>` block holding one `<rule …>` block per rule.
 * A delimiter is only a delimiter on a line of its own; a line of rule text
 * that looks like one is escaped with a leading backslash (and a line that
 * already starts with backslashes before such a tag gets one more), so any
 * rule text round-trips and never closes a block early.
 */
import type { Rule } from "../rule/rule.js";
import { scopeText } from "../select/scope.js";

export const MESSAGE_HEADER =
  "These are this project's rules, set by the people who maintain it, delivered by opencode-rulebook. " +
  "They are binding: follow every rule below in all the work of this session, and when a rule conflicts with a general habit or default, the rule wins. " +
  "Each rule names the file it comes from.";

/** The parts of a rule a message carries. */
export type RenderedRule = Pick<Rule, "name" | "scope" | "displayPath" | "content"> &
  Partial<Pick<Rule, "source" | "conditions">>;

/** A line that starts like a block delimiter, after any backslashes: rule text gets one more backslash there (test/support/rules-message.ts takes it off). */
export const TAG_LINE = /^(\\*)(<\/?(?:rulebook|rule)(?=[\s>]|$))/;

export interface RenderExtras {
  /** Rules the model reads on request: named with their description. */
  onRequest?: ReadonlyArray<Pick<Rule, "name" | "description">>;
  /** On-request rules not listed, to keep the message within its budget: counted in a last line. */
  onRequestMore?: number;
  /** Active rules left out for the size budget: named, readable with the `rule` tool. */
  leftOut?: ReadonlyArray<LeftOutEntry>;
  /** Left-out rules not named, to keep the notice short: counted. */
  leftOutMore?: number;
  header?: string;
  /** A sentence after the header (rules changed or deleted since the session got them). */
  notice?: string;
}

/** A rule left out for the budget; `changed` when the session holds an earlier version of it. */
export interface LeftOutEntry {
  name: string;
  changed?: boolean;
}

/**
 * Where to find the names a message leaves unsaid: the `rule` tool answers an
 * unknown name with the names of every rule (src/render/rule-request.ts).
 */
export const ALL_NAMES_HINT =
  "the `rule` tool, given a name that is no rule's, answers with the names of the rules (those beginning with it, when there are any)";

/** The message is its header and these sections; the composer sizes sections one by one. */
export function renderRulesMessage(rules: readonly RenderedRule[], extras: RenderExtras = {}): string {
  const sections = rules.map(renderRuleSection);
  const leftOutMore = extras.leftOutMore ?? 0;
  if (extras.leftOut?.length || leftOutMore > 0) sections.push(renderLeftOutSection(extras.leftOut ?? [], leftOutMore));
  if (extras.onRequest?.length)
    sections.push(renderOnRequestSection(extras.onRequest.map(renderOnRequestEntry), extras.onRequestMore ?? 0));
  return assembleRulesMessage(sections, rulesMessageHeader(extras.header, extras.notice));
}

/** One rule's block. */
export function renderRuleSection(rule: RenderedRule): string {
  return `${openingTag(rule)}${escapeContent(rule.content)}${CLOSING_TAG}`;
}

/** The size of `renderRuleSection(rule)` in UTF-8 bytes, without copying the rule's text (unless a line of it must be escaped). */
export function ruleSectionBytes(rule: RenderedRule): number {
  return (
    Buffer.byteLength(openingTag(rule), "utf8") +
    Buffer.byteLength(escapeContent(rule.content), "utf8") +
    CLOSING_TAG.length
  );
}

function openingTag(rule: RenderedRule): string {
  // A rule for some agents or models says so: the model knows from the start it is not for all its work.
  const only = rule.conditions && scopeText({ conditions: rule.conditions });
  return `<rule name="${attribute(rule.name)}" scope="${rule.scope}"${rule.source ? ` source="${attribute(rule.source)}"` : ""} file="${attribute(rule.displayPath)}"${only ? ` for="${attribute(only)}"` : ""}>\n`;
}

const CLOSING_TAG = "\n</rule>";

/** The paragraph naming rules left out for the budget, and counting those it does not name. */
export function renderLeftOutSection(rules: ReadonlyArray<LeftOutEntry>, more = 0): string {
  return framedList(leftOutFrame(rules.length, more), rules.map(leftOutName));
}

/** A left-out rule as the paragraph names it. */
export function leftOutName(rule: LeftOutEntry): string {
  return (
    oneLine(rule.name) +
    (rule.changed ? " (its file changed since you were given it: the version you have no longer applies)" : "")
  );
}

/**
 * The text around a list of names, which stand between `before` and `after`
 * joined by `NAME_SEPARATOR`: the composer sizes a list from its names' sizes.
 */
export interface ListFrame {
  before: string;
  after: string;
}

/** The frame of a list naming `named` names and counting `more` others. */
export type FrameOf = (named: number, more: number) => ListFrame;

export const NAME_SEPARATOR = ", ";

export function framedList(frame: ListFrame, names: readonly string[]): string {
  return frame.before + names.join(NAME_SEPARATOR) + frame.after;
}

const LEFT_OUT_READ = "Read each with the `rule` tool (argument: the rule's name) before work it may concern";
const LEFT_OUT_UNREADABLE =
  "This OpenCode gives you no tool to read them: before work one of them may concern, tell the user it was left out of your instructions";

/** The left-out notice around its names, ending with what to do (`last`; `lastCounting` when some are only counted). */
const leftOutFrameEnding =
  (last: string, lastCounting: string): FrameOf =>
  (named, more) => {
    const before = "Also in force, left out of this message to keep it short: ";
    if (more === 0) return { before, after: `. ${last}.` };
    const counted =
      named > 0 ? ` and ${countLabel(more)} more not named here` : `${countLabel(more)} rules, not named here`;
    return { before, after: `${counted}. ${lastCounting}.` };
  };

export const leftOutFrame: FrameOf = leftOutFrameEnding(LEFT_OUT_READ, `${LEFT_OUT_READ}; ${ALL_NAMES_HINT}`);

/** `leftOutFrame` on a host without the `rule` tool: the names, and what to do without their text. */
export const leftOutFrameWithoutTool: FrameOf = leftOutFrameEnding(LEFT_OUT_UNREADABLE, LEFT_OUT_UNREADABLE);

/** One line of the on-request list. */
export function renderOnRequestEntry(rule: Pick<Rule, "name" | "description">): string {
  return `- ${oneLine(rule.name)}: ${oneLine(rule.description ?? "")}`;
}

/**
 * The on-request list from its lines (`renderOnRequestEntry`), and a last
 * line counting those not listed. `given`: on a host without the `rule` tool
 * the list names the on-request rules this message holds whole, with when
 * each applies.
 */
export function renderOnRequestSection(entries: readonly string[], more = 0, given = false): string {
  if (given) {
    const lines =
      more > 0 ? [...entries, `…and ${countLabel(more)} more, not listed here to keep this message short.`] : entries;
    return `Rules that apply only to the work they concern, given whole above (this OpenCode gives you no tool to read rules on request): follow each when your work concerns it.\n${lines.join("\n")}`;
  }
  const lines =
    more > 0
      ? [
          ...entries,
          `…and ${countLabel(more)} more rules to read on request, not listed here to keep this message short; ${ALL_NAMES_HINT}.`,
        ]
      : entries;
  return `Rules to read on request: when your work concerns one of these, read it with the \`rule\` tool (argument: the rule's name) and follow it.\n${lines.join("\n")}`;
}

/** The header, and the notice after it. A header may carry a rule's name: kept on one line, it can never open or close a block. */
export function rulesMessageHeader(header: string = MESSAGE_HEADER, notice?: string): string {
  const base = oneLine(header);
  return notice ? `${base}\n\n${oneLine(notice)}` : base;
}

/** The whole message: its size is the frame's (`rulesFrameBytes`) plus each section's, plus a blank line between sections. */
export function assembleRulesMessage(sections: readonly string[], header: string): string {
  // A message of notices only (a switch of agent) has no section to set apart.
  if (sections.length === 0) return `<rulebook>\n${header}\n</rulebook>`;
  return `<rulebook>\n${header}\n\n${sections.join("\n\n")}\n</rulebook>`;
}

/** The bytes of a message with this header besides its sections and the blank lines between them. */
export function rulesFrameBytes(header: string): number {
  return Buffer.byteLength(`<rulebook>\n${header}\n\n\n</rulebook>`, "utf8");
}

const NOT_ONE_LINE = /[\s<]/;

/** Names and descriptions outside rule blocks stay on one line and cannot open a block. */
export function oneLine(text: string): string {
  // Most names have neither white space nor `<`: nothing to replace.
  if (!NOT_ONE_LINE.test(text)) return text;
  return text.replace(/\s+/g, " ").replace(/</g, "‹");
}

/** `2998` → `2,998`: fixed grouping, whatever the machine's locale. */
export function countLabel(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A line needs escaping only where the text holds `<rule` or `</rule`. */
function mayHoldTagLine(content: string): boolean {
  return content.includes("<rule") || content.includes("</rule");
}

function escapeContent(content: string): string {
  if (!mayHoldTagLine(content)) return content;
  return content
    .split("\n")
    .map((line) => line.replace(TAG_LINE, "\\$1$2"))
    .join("\n");
}

/** How attribute values are escaped (test/support/rules-message.ts reads them back). */
export const ATTRIBUTE_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  '"': "&quot;",
  "<": "&lt;",
  ">": "&gt;",
  "\n": "&#10;",
  "\r": "&#13;",
};

const ATTRIBUTE_SPECIAL = /[&"<>\n\r]/;

function attribute(value: string): string {
  if (!ATTRIBUTE_SPECIAL.test(value)) return value;
  return value.replace(/[&"<>\n\r]/g, (char) => ATTRIBUTE_ENTITIES[char] ?? char);
}
