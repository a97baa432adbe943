/**
 * Switching agents and models (issue 13), without OpenCode: which rules a
 * scope lets through (src/select/active.ts), and markers read back. What a
 * message says when the session switches: agent-switch-notices.test.ts; what
 * the session's delivery model then holds: agent-switch-delivery.test.ts.
 */
import { describe, expect, test } from "vitest";
import type { Rule } from "../../src/rule/rule.js";
import { activeRulesAmong, whyRuleDoesNotApply, type SelectionContext } from "../../src/select/active.js";
import { asMarker } from "../../src/session/marker.js";
import { as, context, planNotes, style } from "../support/agent-switch.js";
import { makeRule } from "../support/rules.js";

const activeNames = (rules: readonly Rule[], ctx: SelectionContext) =>
  activeRulesAmong(rules, ctx).map(({ rule }) => rule.name);

describe("activeRulesAmong: a scope narrows whatever the mode", () => {
  test("agents: [plan] alone is always-on for plan, and nothing for build or for an agent not known yet", () => {
    expect(activeRulesAmong([planNotes], context(as("plan")))).toEqual([
      { rule: planNotes, reason: { kind: "always" }, scope: { agent: "plan" } },
    ]);
    expect(activeRulesAmong([planNotes], context(as("build")))).toEqual([]);
    expect(activeRulesAmong([planNotes], context(as()))).toEqual([]);
    expect(activeRulesAmong([planNotes], { files: [] })).toEqual([]);
    // The unscoped rule applies whatever the agent, and carries no scope.
    expect(activeRulesAmong([style, planNotes], context(as()))).toEqual([{ rule: style, reason: { kind: "always" } }]);
  });

  test("with globs: a file rule for plan only", () => {
    const rule = makeRule({ name: "plan-ts", agents: ["plan"], globs: ["src/**/*.ts"] });
    const file = { kind: "file", file: "src/app.ts", glob: "src/**/*.ts" };
    expect(activeRulesAmong([rule], context(as("plan"), { files: ["src/app.ts"] }))).toEqual([
      { rule, reason: { kind: "conditions", met: [file] }, scope: { agent: "plan" } },
    ]);
    expect(activeRulesAmong([rule], context(as("plan"), { files: ["README.md"] }))).toEqual([]);
    expect(activeRulesAmong([rule], context(as("plan")))).toEqual([]);
    expect(activeRulesAmong([rule], context(as("build"), { files: ["src/app.ts"] }))).toEqual([]);
    expect(activeRulesAmong([rule], context(as(), { files: ["src/app.ts"] }))).toEqual([]);
    // A match recorded earlier (the working set) does not reach past the scope either.
    expect(
      activeRulesAmong([rule], context(as("build"), { fileMatches: new Map([["plan-ts", file as never]]) })),
    ).toEqual([]);
  });

  test("with keywords: a keyword rule for plan only", () => {
    const rule = makeRule({ name: "plan-db", agents: ["plan"], keywords: ["migration"] });
    expect(activeRulesAmong([rule], context(as("plan"), { prompt: "plan the migration" }))).toEqual([
      {
        rule,
        reason: { kind: "conditions", met: [{ kind: "keyword", keyword: "migration" }] },
        scope: { agent: "plan" },
      },
    ]);
    expect(activeRulesAmong([rule], context(as("plan"), { prompt: "plan the release" }))).toEqual([]);
    expect(activeRulesAmong([rule], context(as("build"), { prompt: "write the migration" }))).toEqual([]);
  });

  test("a rule activated earlier by a condition stays narrowed: after a switch to build it does not apply", () => {
    const rule = makeRule({ name: "plan-db", agents: ["plan"], keywords: ["migration"] });
    const activated = new Map([
      ["plan-db", { kind: "conditions", met: [{ kind: "keyword", keyword: "migration" }] } as const],
    ]);
    expect(activeNames([rule], context(as("plan"), { activated }))).toEqual(["plan-db"]);
    expect(activeNames([rule], context(as("build"), { activated }))).toEqual([]);
  });

  test("the user's @mention reaches past the scope, and the rule then carries no scope", () => {
    const manualPlan = makeRule({ name: "plan-manual", agents: ["plan"], alwaysApply: false });
    expect(
      activeRulesAmong(
        [planNotes, manualPlan],
        context(as("build"), { mentioned: new Set(["plan-notes", "plan-manual"]) }),
      ),
    ).toEqual([
      { rule: planNotes, reason: { kind: "mention", rule: "plan-notes" } },
      { rule: manualPlan, reason: { kind: "mention", rule: "plan-manual" } },
    ]);
    expect(activeNames([planNotes], context(as(), { mentioned: new Set(["plan-notes"]) }))).toEqual(["plan-notes"]);
  });

  test("a read with the rule tool reaches past the scope, and stays past it", () => {
    const onRequest = makeRule({
      name: "plan-guide",
      agents: ["plan"],
      alwaysApply: false,
      description: "Planning guide",
    });
    const activated = new Map([["plan-guide", { kind: "rule-tool" } as const]]);
    expect(activeRulesAmong([onRequest], context(as("build"), { activated }))).toEqual([
      { rule: onRequest, reason: { kind: "rule-tool" } },
    ]);
    expect(activeRulesAmong([onRequest], context(as("general"), { activated }))).toEqual([
      { rule: onRequest, reason: { kind: "rule-tool" } },
    ]);
  });

  test("ActiveRule.scope names the agent and the model pattern matched", () => {
    const claudeBuild = makeRule({
      name: "claude-build",
      agents: ["plan", "build"],
      models: ["openai/*", "anthropic/*"],
    });
    const claudeAny = makeRule({ name: "claude-any", models: ["anthropic/*"] });
    expect(activeRulesAmong([claudeBuild, claudeAny], context(as("build", "anthropic/claude-sonnet-4")))).toEqual([
      { rule: claudeBuild, reason: { kind: "always" }, scope: { agent: "build", model: "anthropic/*" } },
      { rule: claudeAny, reason: { kind: "always" }, scope: { model: "anthropic/*" } },
    ]);
    expect(activeNames([claudeBuild, claudeAny], context(as("build", "google/gemini")))).toEqual([]);
    expect(activeNames([claudeBuild, claudeAny], context(as("build")))).toEqual([]);
  });

  test("whyRuleDoesNotApply says what the rule is for and what the session works as", () => {
    expect(whyRuleDoesNotApply(planNotes, context(as("build", "x/y")))).toBe(
      "for agent plan only; the session works as agent build",
    );
    expect(whyRuleDoesNotApply(planNotes, context(as("build")))).toBe(
      "for agent plan only; the session works as agent build",
    );
    expect(whyRuleDoesNotApply(planNotes, context(as()))).toBe(
      "for agent plan only; the session's agent is not known yet",
    );
    const models = makeRule({ name: "m", agents: ["plan", "build"], models: ["anthropic/*"] });
    expect(whyRuleDoesNotApply(models, context(as("build", "openai/gpt-5")))).toBe(
      "for model anthropic/* only; the session's model is openai/gpt-5",
    );
    expect(whyRuleDoesNotApply(models, context(as("general")))).toBe(
      "for agents plan, build only; the session works as agent general; for model anthropic/* only; the session's model is not known yet",
    );
    expect(whyRuleDoesNotApply(planNotes, context(as("plan")))).toBeUndefined();
    // In scope but its condition unmet: the condition is what is missing.
    const planTs = makeRule({ name: "plan-ts", agents: ["plan"], globs: ["src/**/*.ts"] });
    expect(whyRuleDoesNotApply(planTs, context(as("plan")))).toBe("files: no file matched src/**/*.ts");
  });
});

describe("markers read back from a history or storage", () => {
  test("lists of names of another shape are left out; the rest of the marker is kept", () => {
    expect(
      asMarker({ kind: "rules", rules: ["a"], trigger: "first-message", paused: 5, resumed: ["b"], listed: ["c", 3] }),
    ).toEqual({
      kind: "rules",
      rules: ["a"],
      trigger: "first-message",
      resumed: ["b"],
    });
    const whole = { kind: "rules", rules: ["a"], trigger: "t", paused: ["p"] };
    expect(asMarker(whole)).toBe(whole);
    expect(asMarker({ kind: "rules", rules: "a" })).toBeUndefined();
  });
});
