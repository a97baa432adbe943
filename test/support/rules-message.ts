/**
 * Reads a rules message back into its rules: the inverse of
 * `renderRulesMessage` (src/render/message.ts), for tests that check what a
 * session was sent. The plugin itself never reads its messages back.
 */
import { ATTRIBUTE_ENTITIES, TAG_LINE, type RenderedRule } from "../../src/render/message.js";

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
      rules.push({
        name,
        scope: scope === "global" ? "global" : "project",
        displayPath: file,
        content: open.lines.join("\n"),
        ...(source ? { source } : {}),
      });
      open = undefined;
      continue;
    }
    open.lines.push(unescapeLine(line));
  }
  return rules;
}

function unescapeLine(line: string): string {
  return line.replace(TAG_LINE, (_all, slashes: string, tag: string) => slashes.slice(1) + tag);
}

function readAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of text.matchAll(/([a-z]+)="([^"]*)"/g)) {
    attributes[match[1] as string] = (match[2] as string).replace(/&(amp|quot|lt|gt|#10|#13);/g, (entity) => {
      const found = Object.entries(ATTRIBUTE_ENTITIES).find(([, escaped]) => escaped === entity);
      return found ? found[0] : entity;
    });
  }
  return attributes;
}
