/**
 * Agent and model scopes (issue 13): `agents:` and `models:` in front matter,
 * as parsed (src/rule/parse.ts) and as matched against the agent and model a
 * session works as now (src/select/scope.ts).
 */
import { describe, expect, test } from "vitest";
import type { RuleConditions } from "../../src/conditions/list.js";
import { modelMatches, type ModelRef } from "../../src/conditions/models.js";
import { inScope, isScoped, scopeMatch, scopeText } from "../../src/select/scope.js";
import { parse, parsed, PATH } from "../support/parse.js";
import { type RuleWarning, warningText } from "../../src/rule/warnings.js";

const model = (providerID: string, modelID: string): ModelRef => ({ providerID, modelID });
/** A rule as scopes see it: its conditions. */
const scoped = (conditions: RuleConditions) => ({ conditions });
const planOnly = scoped({ agents: ["plan"] });
const planOrBuild = scoped({ agents: ["plan", "build"] });

describe("agents", () => {
  test("a rule for some agents matches each of them, and no other", () => {
    expect(scopeMatch(planOrBuild, { agent: "plan" })).toEqual({ agent: "plan" });
    expect(scopeMatch(planOrBuild, { agent: "build" })).toEqual({ agent: "build" });
    expect(scopeMatch(planOrBuild, { agent: "general" })).toBeUndefined();
    expect(inScope(planOrBuild, { agent: "explore" })).toBe(false);
    expect(inScope(planOrBuild, { agent: "build" })).toBe(true);
  });

  test("agent names are compared ignoring case, both ways", () => {
    expect(inScope(scoped({ agents: ["Plan"] }), { agent: "plan" })).toBe(true);
    expect(inScope(planOnly, { agent: "PLAN" })).toBe(true);
    expect(inScope(scoped({ agents: ["Reviewer"] }), { agent: "rEVIEWER" })).toBe(true);
    // Case only: a longer or shorter name is another agent.
    expect(inScope(planOnly, { agent: "planner" })).toBe(false);
    expect(inScope(scoped({ agents: ["planner"] }), { agent: "plan" })).toBe(false);
  });

  test("an agent not known yet matches no rule that names agents", () => {
    expect(scopeMatch(planOnly, undefined)).toBeUndefined();
    expect(scopeMatch(planOnly, {})).toBeUndefined();
    expect(scopeMatch(planOnly, { model: model("anthropic", "claude-sonnet-4") })).toBeUndefined();
  });

  test("a rule that names no agent and no model matches every session, known or not", () => {
    expect(scopeMatch(scoped({}), undefined)).toEqual({});
    expect(scopeMatch(scoped({}), { agent: "build" })).toEqual({});
    expect(scopeMatch(scoped({ agents: [], models: [] }), { agent: "plan" })).toEqual({});
    expect(isScoped(scoped({}))).toBe(false);
    expect(isScoped(scoped({ agents: [] }))).toBe(false);
    expect(isScoped(planOnly)).toBe(true);
    expect(isScoped(scoped({ models: ["anthropic/*"] }))).toBe(true);
  });
});

describe("model patterns", () => {
  const claude = model("anthropic", "claude-sonnet-4");
  const gpt5mini = model("openai", "gpt-5-mini");

  test("provider/* takes every model of that provider and no other", () => {
    expect(modelMatches("anthropic/*", claude)).toBe(true);
    expect(modelMatches("anthropic/*", model("anthropic", "claude-opus-4-1"))).toBe(true);
    expect(modelMatches("anthropic/*", gpt5mini)).toBe(false);
    // The provider must match whole: a provider whose name starts alike is another.
    expect(modelMatches("anthropic/*", model("anthropic-vertex", "claude-sonnet-4"))).toBe(false);
  });

  test("openai/gpt-5* takes the gpt-5 family of that provider only", () => {
    expect(modelMatches("openai/gpt-5*", model("openai", "gpt-5"))).toBe(true);
    expect(modelMatches("openai/gpt-5*", gpt5mini)).toBe(true);
    expect(modelMatches("openai/gpt-5*", model("openai", "gpt-4o"))).toBe(false);
    expect(modelMatches("openai/gpt-5*", model("azure", "gpt-5"))).toBe(false);
  });

  test("a pattern is anchored at both ends: without a star it names one model", () => {
    expect(modelMatches("openai/gpt-5", model("openai", "gpt-5"))).toBe(true);
    expect(modelMatches("openai/gpt-5", gpt5mini)).toBe(false);
    expect(modelMatches("openai/gpt-5", model("xopenai", "gpt-5"))).toBe(false);
  });

  test("a pattern without / may name the model alone, from any provider", () => {
    expect(modelMatches("gpt-5*", gpt5mini)).toBe(true);
    expect(modelMatches("gpt-5*", model("azure", "gpt-5"))).toBe(true);
    expect(modelMatches("gpt-5*", model("openai", "gpt-4.1"))).toBe(false);
    expect(modelMatches("claude-sonnet-4", claude)).toBe(true);
    expect(modelMatches("claude-sonnet-4", model("anthropic", "claude-sonnet-4-5"))).toBe(false);
  });

  test("* spans /: openrouter/* takes a model whose own id holds a /", () => {
    const routed = model("openrouter", "anthropic/claude-x");
    expect(modelMatches("openrouter/*", routed)).toBe(true);
    expect(modelMatches("*/claude-*", routed)).toBe(true);
    expect(modelMatches("openrouter/anthropic/*", routed)).toBe(true);
    expect(modelMatches("openrouter/openai/*", routed)).toBe(false);
    // A pattern with a / is matched against provider/model only: routed through another provider, it is not that provider's.
    expect(modelMatches("anthropic/*", routed)).toBe(false);
  });

  test("? is exactly one character", () => {
    expect(modelMatches("openai/gpt-?", model("openai", "gpt-5"))).toBe(true);
    expect(modelMatches("openai/gpt-?", model("openai", "gpt-4o"))).toBe(false);
    expect(modelMatches("openai/gpt-?", model("openai", "gpt-"))).toBe(false);
    expect(modelMatches("anthropic?claude-sonnet-4", claude)).toBe(true);
  });

  test("case is ignored in the pattern and in the model", () => {
    expect(modelMatches("Anthropic/Claude-*", claude)).toBe(true);
    expect(modelMatches("anthropic/*", model("ANTHROPIC", "Claude-Sonnet-4"))).toBe(true);
    expect(modelMatches("GPT-5*", gpt5mini)).toBe(true);
  });

  test("a hostile pattern against a long id still gives the right answer", () => {
    const pattern = `${"*a".repeat(40)}*b`;
    const longId = "a".repeat(20_000);
    expect(modelMatches(pattern, model("p", longId))).toBe(false);
    expect(modelMatches(pattern, model("p", `${longId}b`))).toBe(true);
    expect(modelMatches(`p/${"*a".repeat(40)}*b`, model("p", longId))).toBe(false);
    expect(modelMatches(`p/${"*a".repeat(40)}*`, model("p", longId))).toBe(true);
  });

  test("a rule's models: the first pattern that matches is the one named, and an unknown model matches none", () => {
    const rule = scoped({ models: ["openai/*", "gpt-5*", "anthropic/*"] });
    expect(scopeMatch(rule, { model: claude })).toEqual({ model: "anthropic/*" });
    expect(scopeMatch(rule, { model: gpt5mini })).toEqual({ model: "openai/*" });
    expect(scopeMatch(rule, { model: model("google", "gemini-2.5-pro") })).toBeUndefined();
    expect(scopeMatch(rule, { agent: "build" })).toBeUndefined();
    expect(scopeMatch(rule, undefined)).toBeUndefined();
  });

  test("agents and models together: both must match", () => {
    const rule = scoped({ agents: ["build"], models: ["anthropic/*"] });
    expect(scopeMatch(rule, { agent: "build", model: claude })).toEqual({ agent: "build", model: "anthropic/*" });
    expect(scopeMatch(rule, { agent: "plan", model: claude })).toBeUndefined();
    expect(scopeMatch(rule, { agent: "build", model: gpt5mini })).toBeUndefined();
    expect(scopeMatch(rule, { agent: "build" })).toBeUndefined();
  });
});

describe("scopeText", () => {
  test("the scope in words, singular and plural", () => {
    expect(scopeText(planOnly)).toBe("agent plan");
    expect(scopeText(planOrBuild)).toBe("agents plan, build");
    expect(scopeText(scoped({ models: ["anthropic/*"] }))).toBe("model anthropic/*");
    expect(scopeText(scoped({ agents: ["plan", "build"], models: ["anthropic/*", "gpt-5*"] }))).toBe(
      "agents plan, build; models anthropic/*, gpt-5*",
    );
    expect(scopeText(scoped({ agents: ["reviewer"], models: ["openai/gpt-5"] }))).toBe(
      "agent reviewer; model openai/gpt-5",
    );
  });

  test("no scope: no words", () => {
    expect(scopeText(scoped({}))).toBeUndefined();
    expect(scopeText(scoped({ agents: [], models: [] }))).toBeUndefined();
  });
});

describe("parseRule: agents and models in front matter", () => {
  test("a comma-separated string of agents", () => {
    const { rule, warnings } = parse("---\nagents: plan, build\n---\nPlan carefully.");
    expect(warnings).toEqual([]);
    expect(rule?.conditions.agents).toEqual(["plan", "build"]);
    expect(rule?.conditions.models).toBeUndefined();
    expect(rule?.unknownKeys).toEqual([]);
  });

  test("one agent, a YAML list, and a flow list", () => {
    expect(parse("---\nagents: plan\n---\nBody").rule?.conditions.agents).toEqual(["plan"]);
    expect(parse("---\nagents:\n  - plan\n  - reviewer\n---\nBody").rule?.conditions.agents).toEqual([
      "plan",
      "reviewer",
    ]);
    expect(parse("---\nagents: [general, explore]\n---\nBody").rule?.conditions.agents).toEqual(["general", "explore"]);
  });

  test("models as a string, a YAML list, and a quoted pattern that YAML would otherwise read as an alias", () => {
    expect(parse("---\nmodels: anthropic/*, openai/gpt-5*\n---\nBody").rule?.conditions.models).toEqual([
      "anthropic/*",
      "openai/gpt-5*",
    ]);
    expect(parse('---\nmodels:\n  - "gpt-5*"\n  - openrouter/*\n---\nBody').rule?.conditions.models).toEqual([
      "gpt-5*",
      "openrouter/*",
    ]);
    expect(parse('---\nmodels: "*/claude-*"\n---\nBody').rule?.conditions.models).toEqual(["*/claude-*"]);
  });

  test("agents and models with other keys: the rule keeps its mode and gains the scope", () => {
    const { rule, warnings } = parse("---\nglobs: src/**/*.ts\nagents: [plan]\nmodels: anthropic/*\n---\nTyped plans.");
    expect(warnings).toEqual([]);
    expect(rule).toMatchObject({
      conditions: { files: ["src/**/*.ts"], agents: ["plan"], models: ["anthropic/*"] },
      content: "Typed plans.",
    });
  });

  test("no agents key: no restriction", () => {
    const { rule, warnings } = parse("---\ndescription: Style\n---\nBody");
    expect(warnings).toEqual([]);
    expect(rule).toBeDefined();
    expect(rule?.conditions.agents).toBeUndefined();
    expect(rule?.conditions.models).toBeUndefined();
    expect(isScoped(rule as NonNullable<typeof rule>)).toBe(false);
  });

  test.each([["agents:"], ['agents: ""'], ["agents: []"], ["models: []"]])(
    "%s names none: the rule is not narrowed, and a warning says so with its line",
    (line) => {
      const result = parsed(`---\ndescription: d\n${line}\n---\nFor whom?`);
      const key = line.startsWith("agents") ? "agents" : "models";
      expect(result.rule?.conditions[key]).toBeUndefined();
      expect(result.warnings).toEqual([{ code: "scope-empty", severity: "warning", path: PATH, key, line: 3 }]);
      expect(warningText(result.warnings[0] as RuleWarning)).toBe(
        `front matter key "${key}" names no ${key === "agents" ? "agent" : "model"}; the rule applies whatever the ${key === "agents" ? "agent" : "model"} (name some, or remove the key)`,
      );
    },
  );

  test.each([
    ["a number", "agents: 5", { type: "number", json: "5" }],
    ["a mapping", "agents:\n  plan: true", "mapping"],
    ["true", "agents: true", { type: "boolean", json: "true" }],
    ["a list holding a number", "agents: [plan, 3]", "list"],
  ] as const)(
    "agents as %s: the rule is skipped with key-invalid naming the key and its line",
    (_what, line, found) => {
      const result = parsed(`---\ndescription: d\n${line}\n---\nPlan only.`);
      expect(result.rule).toBeUndefined();
      expect(result.warnings).toEqual([
        { code: "key-invalid", severity: "error", path: PATH, rule: "my-rule", key: "agents", found, line: 3 },
      ]);
    },
  );

  test.each([
    ["a number", "models: 4", { type: "number", json: "4" }],
    ["a mapping", "models:\n  anthropic: '*'", "mapping"],
    ["a list of mappings", "models:\n  - provider: anthropic", "list"],
  ] as const)(
    "models as %s: the rule is skipped with key-invalid naming the key and its line",
    (_what, line, found) => {
      const result = parsed(`---\n${line}\n---\nFor one model.`);
      expect(result.rule).toBeUndefined();
      expect(result.warnings).toEqual([
        { code: "key-invalid", severity: "error", path: PATH, rule: "my-rule", key: "models", found, line: 2 },
      ]);
    },
  );

  test("the skipped rule's warning, as a person reads it, names the key, what it should be, and the line", () => {
    const { rule, warnings } = parse("---\nalwaysApply: true\nagents: 12\n---\nBody");
    expect(rule).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.line).toBe(3);
    expect(warnings[0]?.message).toContain('"agents"');
    expect(warnings[0]?.message).toContain("agent name");
    expect(warnings[0]?.message).toContain("12");
    expect(warnings[0]?.message).toMatch(/skipped/);
    const models = parse("---\nmodels: {a: b}\n---\nBody").warnings;
    expect(models[0]?.message).toContain('"models"');
    expect(models[0]?.message).toContain("provider/model");
  });
});
