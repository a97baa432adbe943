/**
 * OpenCode 2's tool hooks over the engine: `execute.before` (a call about to
 * run, refused when it breaks a rule that blocks), `execute.after` (the rules
 * its result activates), and the answer of the `rule` tool the model reads a
 * rule with (`rule-tool-info.ts` shapes the tool).
 * Unguarded here: `plugin.ts` guards each where it registers it.
 */
import type { Rulebook } from "../../engine/contract.js";
import { refusal, required } from "../opencode/guarded-hooks.js";
import { RULE_TOOL_NAME, requestedRuleName } from "../opencode/rule-tool.js";
import { readToolCall } from "../opencode/tool-call.js";
import { toolResultOf } from "../opencode/tool-touch.js";
import type { ToolCalled, ToolFinished } from "./api.js";
import type { RulesLedger } from "./session-port.js";
import { toolCallOf, toolOutcomeOf } from "./tool-events.js";

export function toolHooks({ rulebook, ledger }: { rulebook: Rulebook; ledger: RulesLedger }) {
  // A refusal passes the guard on purpose: OpenCode refuses the call before it runs and the model reads the text; the
  // panel reads its rules from the ledger.
  const before = async (event: ToolCalled) => {
    const call = toolCallOf(event);
    const sessionID = required(call.sessionID, "the sessionID");
    const verdict = await rulebook.toolAboutToRun(
      sessionID,
      readToolCall(required(call.tool, "the tool"), call.callID, call.input),
    );
    if (!verdict?.refusal) return;
    ledger.given(sessionID, verdict.refusal.marker);
    throw refusal(verdict.refusal.text);
  };

  const after = async (event: ToolFinished) => {
    const call = toolCallOf(event);
    const sessionID = required(call.sessionID, "the sessionID");
    const tool = required(call.tool, "the tool");
    const outcome = toolOutcomeOf(event);
    // The rule tool's own answer carries its rule already.
    if (outcome.status !== "completed" || tool === RULE_TOOL_NAME) return;
    const rules = await rulebook.toolResult(sessionID, toolResultOf(tool, call.callID, call.input, outcome.text));
    // Placed after this step's tool results, in the request that reads them.
    if (rules !== undefined) ledger.add(sessionID, rules);
  };

  /** The `rule` tool's answer: the rule's text, or why there is none. */
  const readRule = async (input: unknown, context: { readonly sessionID: string }): Promise<string> => {
    const sessionID = required(context?.sessionID, "the sessionID");
    const answer = await rulebook.ruleRequested(sessionID, requestedRuleName(input));
    if (typeof answer?.output !== "string") throw new Error("the engine gave no answer");
    if (answer.marker) ledger.given(sessionID, answer.marker);
    return answer.output;
  };

  return { before, after, readRule };
}
