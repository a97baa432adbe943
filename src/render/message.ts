/**
 * The text of a rules message, and its inverse. Pure.
 *
 * Structure: a `<rulebook>` block holding one `<rule …>` block per rule.
 * A delimiter is only a delimiter on a line of its own; a line of rule text
 * that looks like one is escaped with a leading backslash (and a line that
 * already starts with backslashes before such a tag gets one more), so any
 * rule text round-trips and never closes a block early.
 */
import type { Rule } from "../rule/rule.js";

export const MESSAGE_HEADER =
  "These are this project's rules, set by the people who maintain it, delivered by opencode-rulebook. " +
  "They are binding: follow every rule below in all the work of this session, and when a rule conflicts with a general habit or default, the rule wins. " +
  "Each rule names the file it comes from.";

/** The parts of a rule a message carries. */
export type RenderedRule = Pick<Rule, "name" | "scope" | "displayPath" | "content"> & Partial<Pick<Rule, "source">>;

const TAG_LINE = /^(\\*)(<\/?(?:rulebook|rule)(?=[\s>]|$))/;

export interface RenderExtras {
  /** Rules the model reads on request: named with their description. */
  onRequest?: ReadonlyArray<Pick<Rule, "name" | "description">>;
  /** Active rules left out for the size budget: named, readable with the `rule` tool. */
  leftOut?: ReadonlyArray<Pick<Rule, "name">>;
  header?: string;
  /** A sentence after the header (rules changed or deleted since the session got them). */
  notice?: string;
}

export function renderRulesMessage(rules: readonly RenderedRule[], extras: RenderExtras = {}): string {
  const sections = rules.map(
    (rule) =>
      `<rule name="${attribute(rule.name)}" scope="${rule.scope}"${rule.source ? ` source="${attribute(rule.source)}"` : ""} file="${attribute(rule.displayPath)}">\n` +
      `${escapeContent(rule.content)}\n</rule>`,
  );
  if (extras.leftOut?.length) {
    sections.push(
      `Also in force, left out of this message to keep it short: ${extras.leftOut.map((rule) => oneLine(rule.name)).join(", ")}. ` +
        "Read each with the `rule` tool (argument: the rule's name) before work it may concern.",
    );
  }
  if (extras.onRequest?.length) {
    sections.push(
      "Rules to read on request: when your work concerns one of these, read it with the `rule` tool (argument: the rule's name) and follow it.\n" +
        extras.onRequest.map((rule) => `- ${oneLine(rule.name)}: ${oneLine(rule.description ?? "")}`).join("\n"),
    );
  }
  // A header may carry a rule's name: kept on one line, it can never open or close a block.
  const base = oneLine(extras.header ?? MESSAGE_HEADER);
  const header = extras.notice ? `${base}\n\n${oneLine(extras.notice)}` : base;
  return `<rulebook>\n${header}\n\n${sections.join("\n\n")}\n</rulebook>`;
}

/** Names and descriptions outside rule blocks stay on one line and cannot open a block. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").replace(/</g, "‹");
}

/** Reads a message made by `renderRulesMessage` back into its rules. */
export function parseRulesMessage(text: string): RenderedRule[] {
  const rules: RenderedRule[] = [];
  let open: { attributes: Record<string, string>; lines: string[] } | undefined;
  for (const line of text.split("\n")) {
    if (!open) {
      const start = /^<rule((?:\s+[a-z]+="[^"]*")*)>$/.exec(line);
      if (start) open = { attributes: readAttributes(start[1] ?? ""), lines: [] };
      continue;
    }
    if (line === "</rule>") {
      const { name = "", scope = "project", file = "", source } = open.attributes;
      rules.push({ name, scope: scope === "global" ? "global" : "project", displayPath: file, content: open.lines.join("\n"), ...(source ? { source } : {}) });
      open = undefined;
      continue;
    }
    open.lines.push(unescapeLine(line));
  }
  return rules;
}

function escapeContent(content: string): string {
  return content
    .split("\n")
    .map((line) => line.replace(TAG_LINE, "\\$1$2"))
    .join("\n");
}

function unescapeLine(line: string): string {
  return line.replace(TAG_LINE, (_all, slashes: string, tag: string) => slashes.slice(1) + tag);
}

const ENTITIES: Record<string, string> = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;", "\n": "&#10;", "\r": "&#13;" };

function attribute(value: string): string {
  return value.replace(/[&"<>\n\r]/g, (char) => ENTITIES[char] ?? char);
}

function readAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of text.matchAll(/([a-z]+)="([^"]*)"/g)) {
    attributes[match[1] as string] = (match[2] as string).replace(/&(amp|quot|lt|gt|#10|#13);/g, (entity) => {
      const found = Object.entries(ENTITIES).find(([, escaped]) => escaped === entity);
      return found ? found[0] : entity;
    });
  }
  return attributes;
}

