/**
 * `render [--files …] [--prompt …] [--agent …] [--model …]`: the exact text
 * of the rules message a new session gets. stdout holds that text and one
 * newline, nothing else; the size goes to stderr. Without flags, it is the
 * message the plugin sends when a session is created (no files, no prompt
 * yet, an agent and model not known yet).
 */
import type { SessionFacts } from "../conditions/list.js";
import { composeRulesMessage } from "../render/compose.js";
import { inScope, isScoped } from "../select/scope.js";
import type { LoadedRules } from "../formats/load.js";
import { result, type CommandResult, type ProjectContext } from "./context.js";
import { plural, sizeLabel, type Style } from "./format.js";
import { byteLength } from "../render/name-list.js";
import { hypotheticalSession } from "./session.js";

interface RenderOptions {
  files?: string[];
  prompt?: string;
  workingAs?: SessionFacts;
}

/** Rules a summary names before it counts the rest. */
const NAMED_OUT_OF_SCOPE = 5;

export function renderCommand(
  project: ProjectContext,
  loaded: LoadedRules,
  options: RenderOptions,
  style: Style,
): CommandResult {
  const session = hypotheticalSession(project, loaded.rules, options.files ?? [], options.prompt, options.workingAs);
  const composed = composeRulesMessage(loaded.rules, session.context, {
    listOnRequest: true,
    maxBytes: project.options.maxMessageBytes,
  });
  if (!composed)
    return result(
      "",
      `${style.dim(`No rules message: no rule applies and none is on request${outOfScopeNote(loaded, session.workingAs)}.`)}\n`,
    );
  const bytes = byteLength(composed.text);
  const summary =
    `${sizeLabel(bytes)} (budget ${project.options.maxMessageBytes} B): ${plural(composed.included.length, "rule")} delivered, ` +
    `${composed.onRequest.length} listed on request, ${composed.leftOut.length} left out${outOfScopeNote(loaded, session.workingAs)}`;
  return result(`${composed.text}\n`, `${style.dim(summary)}\n`);
}

/** The rules for other agents or models, named: a message without them is not all a project's sessions get. */
function outOfScopeNote(loaded: LoadedRules, as: SessionFacts): string {
  const names = loaded.rules.filter((rule) => isScoped(rule) && !inScope(rule, as)).map((rule) => rule.name);
  if (names.length === 0) return "";
  const shown =
    names.length > NAMED_OUT_OF_SCOPE
      ? `${names.slice(0, NAMED_OUT_OF_SCOPE).join(", ")} and ${names.length - NAMED_OUT_OF_SCOPE} more`
      : names.join(", ");
  return `; not for this agent or model (see --agent, --model): ${shown}`;
}
