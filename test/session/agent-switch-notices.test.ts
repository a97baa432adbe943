/**
 * Switching agents and models (issue 13), without OpenCode: what a message
 * says when the session switches (src/render/compose.ts): the rules paused,
 * the rules in effect again, within the budget.
 */
import { describe, expect, test } from "vitest";
import type { SessionFacts } from "../../src/conditions/list.js";
import { composeRulesMessage, type ComposeOptions } from "../../src/render/compose.js";
import { MESSAGE_HEADER } from "../../src/render/message.js";
import type { Rule } from "../../src/rule/rule.js";
import type { SelectionContext } from "../../src/select/active.js";
import { as, blockNames, buildTests, context, count, held, planNotes, RULES, style } from "../support/agent-switch.js";
import { makeRule } from "../support/rules.js";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");
/** The message's lines: `<rulebook>`, the header, a blank line, then the notice when there is one. */
const noticeLine = (text: string) => {
  const lines = text.split("\n");
  expect(lines[0]).toBe("<rulebook>");
  expect(lines[1]).toBe(MESSAGE_HEADER);
  expect(lines[2]).toBe("");
  return lines[3] ?? "";
};

const PAUSED_PLAN_IN_BUILD =
  "Not in effect while you work as agent build, though given to you earlier in this conversation: plan-notes (agent plan). Set them aside until a message says they apply again.";
const RESUMED_PLAN =
  "In effect again now that you work as agent plan, as given to you earlier in this conversation: plan-notes (agent plan).";

describe("composeRulesMessage: switch notices", () => {
  const compose = (
    workingAs: SessionFacts,
    options: ComposeOptions = {},
    rules: readonly Rule[] = RULES,
    extra: Partial<SelectionContext> = {},
  ) => composeRulesMessage(rules, context(workingAs, extra), options);

  test("the first message for plan holds the plan rule and not the build rule, and its block says whom it is for", () => {
    const first = compose(as("plan"))!;
    expect(blockNames(first)).toEqual(["style", "plan-notes"]);
    expect(first.text).toContain(
      '<rule name="plan-notes" scope="project" source="native" file=".opencode/rules/plan-notes.md" for="agent plan">',
    );
    expect(first.text).toContain('<rule name="style" scope="project" source="native" file=".opencode/rules/style.md">');
    expect(first.paused).toEqual([]);
    expect(first.resumed).toEqual([]);
    expect(first.included.find(({ rule }) => rule.name === "plan-notes")?.scope).toEqual({ agent: "plan" });
  });

  test("switching to build: the plan rule is paused, in one sentence on one line after the header, and the build rule's block follows", () => {
    const composed = compose(as("build"), { delivered: held(style, planNotes) })!;
    expect(composed.paused).toEqual(["plan-notes"]);
    expect(composed.resumed).toEqual([]);
    expect(blockNames(composed)).toEqual(["build-tests"]);
    expect(count(composed.text, "Not in effect while you work as agent build")).toBe(1);
    expect(noticeLine(composed.text)).toBe(PAUSED_PLAN_IN_BUILD);
    expect(composed.text).toContain("Run the tests after each edit.");
    expect(composed.text).not.toContain("Plans list their risks.");
    // The notice comes before the rule blocks.
    expect(composed.text.indexOf(PAUSED_PLAN_IN_BUILD)).toBeLessThan(composed.text.indexOf('<rule name="build-tests"'));
  });

  test("a switch of agent speaks of the agent, the model known or not; a rule for some models names the model", () => {
    const agentOnly = compose(as("build", "openai/gpt-5"), { delivered: held(style, planNotes) })!;
    expect(noticeLine(agentOnly.text)).toBe(PAUSED_PLAN_IN_BUILD);
    const claude = makeRule({ name: "claude", models: ["anthropic/*"] });
    const modelSwitch = compose(as("build", "openai/gpt-5"), { delivered: held(style, claude) }, [style, claude])!;
    expect(noticeLine(modelSwitch.text)).toBe(
      "Not in effect while you work as agent build on model openai/gpt-5, though given to you earlier in this conversation: claude (model anthropic/*). Set them aside until a message says they apply again.",
    );
    const back = compose(
      as("build", "anthropic/claude-sonnet-4"),
      { delivered: held(style, claude), paused: new Set(["claude"]) },
      [style, claude],
    )!;
    expect(noticeLine(back.text)).toBe(
      "In effect again now that you work as agent build on model anthropic/claude-sonnet-4, as given to you earlier in this conversation: claude (model anthropic/*).",
    );
  });

  test("a rule already said to be paused is not paused again", () => {
    const composed = compose(as("build"), {
      delivered: held(style, planNotes, buildTests),
      paused: new Set(["plan-notes"]),
    });
    expect(composed).toBeUndefined();
  });

  test("switching back to plan: the plan rule is in effect again, its block not given a second time; the build rule is paused", () => {
    const composed = compose(as("plan"), {
      delivered: held(style, planNotes, buildTests),
      paused: new Set(["plan-notes"]),
    })!;
    expect(composed.resumed).toEqual(["plan-notes"]);
    expect(composed.paused).toEqual(["build-tests"]);
    expect(composed.included).toEqual([]);
    expect(composed.text).not.toContain('<rule name="plan-notes"');
    expect(composed.text).not.toContain("Plans list their risks.");
    expect(count(composed.text, RESUMED_PLAN)).toBe(1);
    const notice = noticeLine(composed.text);
    expect(notice).toContain(RESUMED_PLAN);
    expect(notice).toContain(
      "Not in effect while you work as agent plan, though given to you earlier in this conversation: build-tests (agent build).",
    );
  });

  test("a message with only notices: no rule block, still a message", () => {
    const composed = compose(as("build"), { delivered: held(planNotes) }, [planNotes])!;
    expect(composed).toBeDefined();
    expect(composed.included).toEqual([]);
    expect(blockNames(composed)).toEqual([]);
    expect(composed.text).not.toContain("<rule ");
    expect(noticeLine(composed.text)).toBe(PAUSED_PLAN_IN_BUILD);
  });

  test("a paused rule whose file changed is given again when back in scope, not resumed", () => {
    const edited = makeRule({
      name: "plan-notes",
      agents: ["plan"],
      content: "Plans list their risks and their tests.",
    });
    const composed = compose(
      as("plan"),
      { delivered: held(style, planNotes, buildTests), paused: new Set(["plan-notes"]) },
      [style, edited, buildTests],
    )!;
    expect(composed.resumed).toEqual([]);
    expect(composed.included.map(({ rule }) => rule)).toEqual([edited]);
    expect(blockNames(composed)).toEqual(["plan-notes"]);
    expect(composed.text).toContain("Plans list their risks and their tests.");
    expect(composed.text).not.toContain("In effect again");
    expect(composed.text).toContain("The rule file of plan-notes changed");
  });

  test("a paused rule whose file was deleted is announced deleted, not resumed", () => {
    const composed = compose(
      as("plan"),
      { delivered: held(style, planNotes, buildTests), paused: new Set(["plan-notes"]) },
      [style, buildTests],
    )!;
    expect(composed.resumed).toEqual([]);
    expect(composed.removed).toEqual(["plan-notes"]);
    expect(composed.text).toContain("The rule file of plan-notes was deleted");
    expect(composed.text).not.toContain("In effect again");
  });

  test("a rule out of scope but asked for by name is never paused", () => {
    const composed = compose(as("build"), { delivered: held(style, planNotes, buildTests) }, RULES, {
      activated: new Map([["plan-notes", { kind: "rule-tool" }]]),
    });
    expect(composed).toBeUndefined();
    const mentioned = compose(as("build"), { delivered: held(style, planNotes, buildTests) }, RULES, {
      mentioned: new Set(["plan-notes"]),
    });
    expect(mentioned?.paused ?? []).toEqual([]);
  });

  describe("on-request rules with a scope", () => {
    const guide = makeRule({ name: "plan-guide", agents: ["plan"], alwaysApply: false, description: "Planning guide" });
    const security = makeRule({ name: "security", alwaysApply: false, description: "Handling secrets" });
    const rules = [guide, security];

    test("listed only while in scope", () => {
      const inBuild = compose(as("build"), { listOnRequest: true }, rules)!;
      expect(inBuild.onRequest.map((rule) => rule.name)).toEqual(["security"]);
      expect(inBuild.text).not.toContain("plan-guide");
      const inPlan = compose(as("plan"), { listOnRequest: true }, rules)!;
      expect(inPlan.onRequest.map((rule) => rule.name)).toEqual(["plan-guide", "security"]);
      expect(inPlan.text).toContain("- plan-guide: Planning guide");
    });

    test("listed when it comes into scope, though the window's list was given", () => {
      const composed = compose(as("plan"), { listOnRequest: false }, rules)!;
      expect(composed.onRequest.map((rule) => rule.name)).toEqual(["plan-guide"]);
      expect(composed.text).toContain("- plan-guide: Planning guide");
      expect(composed.text).not.toContain("security");
    });

    test("not listed again once the window lists it", () => {
      expect(compose(as("plan"), { listOnRequest: false, listed: new Set(["plan-guide"]) }, rules)).toBeUndefined();
    });

    test("listed, then out of scope: paused like a rule given; back in scope: in effect again, not listed twice", () => {
      const paused = compose(as("build"), { listOnRequest: false, listed: new Set(["plan-guide"]) }, rules)!;
      expect(paused.paused).toEqual(["plan-guide"]);
      expect(paused.onRequest).toEqual([]);
      const back = compose(
        as("plan"),
        { listOnRequest: false, listed: new Set(["plan-guide"]), paused: new Set(["plan-guide"]) },
        rules,
      )!;
      expect(back.resumed).toEqual(["plan-guide"]);
      expect(back.onRequest).toEqual([]);
      expect(back.text).not.toContain("- plan-guide:");
    });
  });

  test("many paused rules on a small budget: the message stays within it, naming some and counting the rest", () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      makeRule({ name: `plan-rule-with-a-long-name-${i}`, agents: ["plan"] }),
    );
    const maxBytes = 2000;
    const composed = compose(as("build"), { delivered: held(...many), maxBytes }, [...many, buildTests])!;
    expect(composed.paused).toHaveLength(300);
    expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
    const notice = noticeLine(composed.text);
    expect(notice).toMatch(
      /^Not in effect while you work as agent build, though given to you earlier in this conversation: plan-rule-with-a-long-name-0 \(agent plan\)/,
    );
    const named = count(notice, "(agent plan)");
    expect(named).toBeGreaterThan(0);
    expect(named).toBeLessThan(300);
    expect(notice).toContain(
      ` and ${300 - named} more rules for other agents, models or branches. Set them aside until a message says they apply again.`,
    );
    // The build rule still comes with it.
    expect(blockNames(composed)).toEqual(["build-tests"]);
  });

  test("many resumed rules and a large build rule on a small budget: within it, the rule left out is named", () => {
    const many = Array.from({ length: 200 }, (_, i) => makeRule({ name: `plan-rule-${i}`, agents: ["plan"] }));
    const bigBuild = makeRule({ name: "big-build", agents: ["build"], content: "z".repeat(3000) });
    const maxBytes = 1500;
    const composed = composeRulesMessage([...many, bigBuild], context(as("plan")), {
      delivered: held(...many),
      paused: new Set(many.map((rule) => rule.name)),
      maxBytes,
    })!;
    expect(composed.resumed).toHaveLength(200);
    expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
    expect(noticeLine(composed.text)).toMatch(/more rules\.$/);
    const back = composeRulesMessage([...many, bigBuild], context(as("build")), {
      delivered: held(...many),
      maxBytes,
    })!;
    expect(bytes(back.text)).toBeLessThanOrEqual(maxBytes);
    expect(back.leftOut.map((rule) => rule.name)).toEqual(["big-build"]);
    expect(back.text).toContain("big-build");
  });
});
