/**
 * The rules and helpers the agent-switch tests share
 * (test/session/agent-switch*.test.ts): a rule for every agent, one for plan
 * only and one for build only, and what a session works as.
 */
import type { SessionFacts } from "../../src/conditions/list.js";
import type { ComposedMessage } from "../../src/render/compose.js";
import type { Rule } from "../../src/rule/rule.js";
import type { SelectionContext } from "../../src/select/active.js";
import { parseRulesMessage } from "./rules-message.js";
import { makeRule } from "./rules.js";

export const style = makeRule({ name: "style", content: "Write small functions." });
export const planNotes = makeRule({ name: "plan-notes", agents: ["plan"], content: "Plans list their risks." });
export const buildTests = makeRule({
  name: "build-tests",
  agents: ["build"],
  content: "Run the tests after each edit.",
});
export const RULES = [style, planNotes, buildTests];

export const as = (agent?: string, model?: string): SessionFacts => {
  if (model === undefined) return agent === undefined ? {} : { agent };
  const [providerID = "", ...rest] = model.split("/");
  return { ...(agent === undefined ? {} : { agent }), model: { providerID, modelID: rest.join("/") } };
};
export const context = (facts: SessionFacts, extra: Partial<SelectionContext> = {}): SelectionContext => ({
  files: [],
  facts,
  ...extra,
});
export const blockNames = (composed: ComposedMessage | undefined) =>
  parseRulesMessage(composed?.text ?? "").map((rule) => rule.name);
export const held = (...rules: Rule[]) => new Map(rules.map((rule) => [rule.name, rule]));
export const count = (text: string, part: string) => text.split(part).length - 1;
