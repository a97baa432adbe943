/**
 * A host that offers the model no `rule` tool (issue 39: an OpenCode 2
 * revision whose tool API the plugin was not built to): the on-request rules
 * cannot be read on request, so each is given whole, once, with when it
 * applies, and nothing in the message points at a tool the model lacks.
 */
import { describe, expect, test } from "vitest";
import { composeRulesMessage } from "../../src/render/compose.js";
import { windowNeeds } from "../../src/select/window-needs.js";
import { parseRulesMessage } from "../support/rules-message.js";
import { makeRule } from "../support/rules.js";

const always = makeRule({ name: "house", content: "Be brief." });
const secrets = makeRule({
  name: "secrets",
  alwaysApply: false,
  description: "Handling secrets and credentials",
  content: "Never print a token.",
});
const planOnly = makeRule({
  name: "plan-notes",
  alwaysApply: false,
  description: "Planning",
  agents: ["plan"],
  content: "List the steps.",
});
const requestable = makeRule({
  name: "sql",
  globs: ["**/*.sql"],
  requestable: true,
  description: "SQL files",
  content: "Use bind parameters.",
});
const manual = makeRule({ name: "release", alwaysApply: false, content: "Bump the version." });
const rules = [always, secrets, planOnly, requestable, manual];
const context = { files: [], facts: { agent: "build" } };

describe("without the rule tool", () => {
  test("on-request rules in scope are active, given whole; a conditional rule waits for its condition; a manual one for its mention", () => {
    const needs = windowNeeds(rules, context, { listOnRequest: true, ruleTool: false });
    expect(needs.active.map(({ rule, reason }) => [rule.name, reason.kind])).toEqual([
      ["house", "always"],
      ["secrets", "on-request"],
    ]);
    expect(needs.onRequest).toEqual([]);
    // With the tool, the same window lists them instead.
    const listed = windowNeeds(rules, context, { listOnRequest: true });
    expect(listed.onRequest.map((rule) => rule.name)).toEqual(["secrets", "sql"]);
    expect(listed.active.map(({ rule }) => rule.name)).toEqual(["house"]);
  });

  test("the message holds their text and says when each applies; it never names the rule tool", () => {
    const composed = composeRulesMessage(rules, context, { listOnRequest: true, ruleTool: false });
    expect(composed?.included.map(({ rule }) => rule.name)).toEqual(["house", "secrets"]);
    expect(composed?.onRequest).toEqual([]);
    const text = composed?.text ?? "";
    expect(parseRulesMessage(text).map((rule) => [rule.name, rule.content])).toEqual([
      ["house", "Be brief."],
      ["secrets", "Never print a token."],
    ]);
    expect(text).toContain(
      "given whole above (this OpenCode gives you no tool to read rules on request): follow each when your work concerns it.\n- secrets: Handling secrets and credentials",
    );
    expect(text).not.toContain("`rule` tool");
  });

  test("once held, not given again; for another agent, given when the session works as it", () => {
    const held = new Map([
      ["house", always],
      ["secrets", secrets],
    ]);
    expect(composeRulesMessage(rules, context, { delivered: held, ruleTool: false })).toBeUndefined();
    const planning = composeRulesMessage(
      rules,
      { files: [], facts: { agent: "plan" } },
      { delivered: held, ruleTool: false },
    );
    expect(planning?.included.map(({ rule, scope }) => [rule.name, scope?.agent])).toEqual([["plan-notes", "plan"]]);
  });

  test("a message over its budget names the rules it leaves out and says they cannot be read here", () => {
    const big = makeRule({
      name: "big",
      alwaysApply: false,
      description: "Big",
      content: "x".repeat(4000),
      priority: 10,
    });
    const composed = composeRulesMessage([always, big], context, { ruleTool: false, maxBytes: 1500 });
    expect(composed?.leftOut.map((rule) => rule.name)).toEqual(["big"]);
    expect(composed?.text).toContain(
      "left out of this message to keep it short: big. This OpenCode gives you no tool to read them",
    );
    expect(composed?.text).not.toContain("`rule` tool");
    expect(Buffer.byteLength(composed?.text ?? "")).toBeLessThanOrEqual(1500);
  });
});
