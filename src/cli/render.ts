/**
 * `render [--files …] [--prompt …]`: the exact text of the rules message a
 * new session gets. stdout holds that text and one newline, nothing else;
 * the size goes to stderr. Without flags, it is the message the plugin
 * sends when a session is created (no files, no prompt yet).
 */
import { composeRulesMessage } from "../render/compose.js";
import type { LoadedRules } from "../sources/load.js";
import { result, type CommandResult, type ProjectContext } from "./context.js";
import { byteLength, plural, sizeLabel, type Style } from "./format.js";
import { hypotheticalSession } from "./session.js";

export interface RenderOptions {
  files?: string[];
  prompt?: string;
}

export function renderCommand(project: ProjectContext, loaded: LoadedRules, options: RenderOptions, style: Style): CommandResult {
  const session = hypotheticalSession(project, loaded.rules, options.files ?? [], options.prompt);
  const composed = composeRulesMessage(loaded.rules, session.context, { listOnRequest: true, maxBytes: project.options.maxMessageBytes });
  if (!composed) return result("", `${style.dim("No rules message: no rule applies and none is on request.")}\n`);
  const bytes = byteLength(composed.text);
  const summary =
    `${sizeLabel(bytes)} (budget ${project.options.maxMessageBytes} B): ${plural(composed.included.length, "rule")} delivered, ` +
    `${composed.onRequest.length} listed on request, ${composed.leftOut.length} left out`;
  return result(`${composed.text}\n`, `${style.dim(summary)}\n`);
}
