/**
 * `explain <file>… [--prompt]`: for a session that touches those files and
 * receives that prompt, which rules would be delivered and why, and which
 * would not and why. The reasons are the engine's own (whyRuleApplies,
 * whyRuleDoesNotApply), and delivery is composeRulesMessage's, budget included.
 */
import { composeRulesMessage } from "../render/compose.js";
import type { Rule } from "../rule/rule.js";
import { whyRuleDoesNotApply } from "../select/active.js";
import { reasonText, type ActivationReason } from "../select/reasons.js";
import type { LoadedRules } from "../sources/load.js";
import { result, type CommandResult, type ProjectContext } from "./context.js";
import { byteLength, columns, estimateTokens, plural, sizeLabel, type Style } from "./format.js";
import { hypotheticalSession } from "./session.js";

export interface ExplainOptions {
  prompt?: string;
  json?: boolean;
}

export interface Verdict {
  rule: Rule;
  delivered: boolean;
  reason: string;
}

export function explainCommand(project: ProjectContext, loaded: LoadedRules, files: readonly string[], options: ExplainOptions, style: Style): CommandResult {
  const session = hypotheticalSession(project, loaded.rules, files, options.prompt);
  const composed = composeRulesMessage(loaded.rules, session.context, { listOnRequest: true, maxBytes: project.options.maxMessageBytes });
  const included = new Map((composed?.included ?? []).map(({ rule, reason }) => [rule, reason]));
  const leftOut = new Set(composed?.leftOut ?? []);
  const verdicts: Verdict[] = loaded.rules.map((rule) => {
    const applies = included.get(rule);
    if (applies !== undefined) return { rule, delivered: true, reason: readableReason(applies) };
    if (leftOut.has(rule)) {
      return { rule, delivered: false, reason: `budget: applies, but left out of the ${project.options.maxMessageBytes}-byte message (named in it, read with the rule tool)` };
    }
    return { rule, delivered: false, reason: whyRuleDoesNotApply(rule, session.context) ?? "not delivered" };
  });
  const messageBytes = composed ? byteLength(composed.text) : 0;

  if (options.json) {
    const entry = ({ rule, reason }: Verdict) => ({ name: rule.name, scope: rule.scope, source: rule.source, displayPath: rule.displayPath, path: rule.path, reason });
    const json = {
      files: session.files,
      prompt: session.prompt ?? null,
      mentioned: session.mentioned,
      delivered: verdicts.filter((verdict) => verdict.delivered).map(entry),
      notDelivered: verdicts.filter((verdict) => !verdict.delivered).map(entry),
      onRequest: (composed?.onRequest ?? []).map((rule) => rule.name),
      leftOut: (composed?.leftOut ?? []).map((rule) => rule.name),
      message: { bytes: messageBytes, tokens: estimateTokens(messageBytes), maxBytes: project.options.maxMessageBytes },
    };
    return result(`${JSON.stringify(json, null, 2)}\n`);
  }

  const lines: string[] = [];
  lines.push(`Files: ${session.files.length > 0 ? session.files.join(", ") : style.dim("(none)")}`);
  if (session.prompt !== undefined) lines.push(`Prompt: ${JSON.stringify(session.prompt)}`);
  lines.push("");
  const delivered = verdicts.filter((verdict) => verdict.delivered);
  const notDelivered = verdicts.filter((verdict) => !verdict.delivered);
  lines.push(style.bold(`Delivered (${delivered.length})`));
  if (delivered.length === 0) lines.push(style.dim("  (none)"));
  lines.push(...columns(delivered.map(({ rule, reason }) => [style.green(`✓ ${rule.name}`), reason])));
  lines.push("");
  lines.push(style.bold(`Not delivered (${notDelivered.length})`));
  if (notDelivered.length === 0) lines.push(style.dim("  (none)"));
  lines.push(...columns(notDelivered.map(({ rule, reason }) => [style.dim(`✗ ${rule.name}`), reason])));
  lines.push("");
  lines.push(
    composed
      ? `Message: ${sizeLabel(messageBytes)} (budget ${project.options.maxMessageBytes} B); ${plural(delivered.length, "rule")} delivered, ${composed.onRequest.length} listed on request, ${composed.leftOut.length} left out`
      : "Message: none (no rule applies and none is on request)",
  );
  return result(`${lines.join("\n")}\n`);
}

/**
 * The engine's reason in the command's words, which name the condition as
 * whyRuleDoesNotApply does: `files: X matched G; keywords: "k" in the prompt`.
 */
function readableReason(reason: ActivationReason): string {
  if (reason.kind !== "conditions") return reasonText(reason);
  return reason.met
    .map((condition) => (condition.kind === "file" ? `files: ${condition.file} matched ${condition.glob}` : `keywords: "${condition.keyword}" in the prompt`))
    .join("; ");
}
