/**
 * OpenCode 2's tool hooks over the engine: `execute.before` (a call about to
 * run, refused when it breaks a rule that blocks), `execute.after` (the rules
 * its result activates), and the `rule` tool the model reads a rule with.
 * Unguarded here: `plugin.ts` guards each where it registers it.
 */
import type { Rulebook } from "../../engine/contract.js";
import { refusal, required } from "../opencode/guarded-hooks.js";
import { RULE_TOOL_DESCRIPTION, RULE_TOOL_INPUT, RULE_TOOL_NAME, requestedRuleName } from "../opencode/rule-tool.js";
import { proposedCall } from "../opencode/tool-call.js";
import { touchedBy } from "../opencode/tool-touch.js";
import type { ToolCalled, ToolFinished, ToolInfo, ToolResult } from "./api.js";
import type { RulesLedger } from "./session-port.js";
import { resultText } from "./shapes.js";

export function toolHooks({ rulebook, ledger }: { rulebook: Rulebook; ledger: RulesLedger }) {
  // A refusal passes the guard on purpose: OpenCode refuses the call before it runs and the model reads the text; the panel reads its rules from the ledger.
  const before = async (event: ToolCalled) => {
    const sessionID = required(event.sessionID, "the sessionID");
    const verdict = await rulebook.toolAboutToRun(sessionID, proposedCall(required(event.tool, "the tool"), event.id, event.input));
    if (!verdict?.refusal) return;
    ledger.given(sessionID, verdict.refusal.marker);
    throw refusal(verdict.refusal.text);
  };

  const after = async (event: ToolFinished) => {
    const sessionID = required(event.sessionID, "the sessionID");
    // The rule tool's own answer carries its rule already.
    if (event.status !== "completed" || event.tool === RULE_TOOL_NAME) return;
    const rules = await rulebook.toolResult(sessionID, {
      ...touchedBy(required(event.tool, "the tool"), event.input, resultText(event.result?.content, event.result?.output)),
      callID: event.id,
    });
    // Placed after this step's tool results, in the request that reads them.
    if (rules !== undefined) ledger.add(sessionID, rules);
  };

  const readRule = async (input: unknown, context: { readonly sessionID: string }): Promise<ToolResult> => {
    const sessionID = required(context.sessionID, "the sessionID");
    const answer = await rulebook.ruleRequested(sessionID, requestedRuleName(input));
    if (typeof answer?.output !== "string") throw new Error("the engine gave no answer");
    if (answer.marker) ledger.given(sessionID, answer.marker);
    return { content: answer.output };
  };

  /** The `rule` tool, offered to the model itself, not only through OpenCode's code tool; `execute` is the guarded `readRule`. */
  const ruleTool = (execute: ToolInfo["execute"]): ToolInfo => ({
    name: RULE_TOOL_NAME,
    description: RULE_TOOL_DESCRIPTION,
    input: RULE_TOOL_INPUT,
    options: { codemode: false },
    execute,
  });

  return { before, after, readRule, ruleTool };
}
