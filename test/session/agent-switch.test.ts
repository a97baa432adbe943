/**
 * Switching agents and models (issue 13), without OpenCode: which rules a
 * scope lets through (src/select/active.ts), what a message says when the
 * session switches (src/render/compose.ts), and what the session's delivery
 * model then holds (src/session/delivery.ts).
 */
import { asMarker } from "../../src/session/marker.js";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { composeRulesMessage, type ComposedMessage, type ComposeOptions } from "../../src/render/compose.js";
import { MESSAGE_HEADER } from "../../src/render/message.js";
import type { Rule } from "../../src/rule/rule.js";
import { activeRulesFor, whyRuleDoesNotApply, type SessionContext } from "../../src/select/active.js";
import { inScope, type WorkingAs } from "../../src/select/scope.js";
import { NEW_SESSION as NEW_SESSION_STATE } from "../../src/session/session.js";
import { step as stepSession } from "../../src/session/step.js";
import {
  NEW_WINDOW as NEW_SESSION,
  type WindowEvent as DeliveryEvent,
  type WindowState as SessionDelivery,
} from "../../src/session/window-state.js";
import { parseRulesMessage } from "../support/rules-message.js";
import { makeRule } from "../support/rules.js";

const style = makeRule({ name: "style", content: "Write small functions." });
const planNotes = makeRule({ name: "plan-notes", agents: ["plan"], content: "Plans list their risks." });
const buildTests = makeRule({ name: "build-tests", agents: ["build"], content: "Run the tests after each edit." });
const RULES = [style, planNotes, buildTests];

const as = (agent?: string, model?: string): WorkingAs => {
  if (model === undefined) return agent === undefined ? {} : { agent };
  const [providerID = "", ...rest] = model.split("/");
  return { ...(agent === undefined ? {} : { agent }), model: { providerID, modelID: rest.join("/") } };
};
const context = (workingAs: WorkingAs, extra: Partial<SessionContext> = {}): SessionContext => ({
  files: [],
  workingAs,
  ...extra,
});
const activeNames = (rules: readonly Rule[], ctx: SessionContext) =>
  activeRulesFor(rules, ctx).map(({ rule }) => rule.name);
const blockNames = (composed: ComposedMessage | undefined) =>
  parseRulesMessage(composed?.text ?? "").map((rule) => rule.name);
const held = (...rules: Rule[]) => new Map(rules.map((rule) => [rule.name, rule]));
const count = (text: string, part: string) => text.split(part).length - 1;
const bytes = (text: string) => Buffer.byteLength(text, "utf8");
/** The message's lines: `<rulebook>`, the header, a blank line, then the notice when there is one. */
const noticeLine = (text: string) => {
  const lines = text.split("\n");
  expect(lines[0]).toBe("<rulebook>");
  expect(lines[1]).toBe(MESSAGE_HEADER);
  expect(lines[2]).toBe("");
  return lines[3] ?? "";
};

/** The session model's step, as it moves the window. */
const advance = (window: SessionDelivery, event: DeliveryEvent): SessionDelivery =>
  stepSession({ ...NEW_SESSION_STATE, window }, event).state.window;

const PAUSED_PLAN_IN_BUILD =
  "Not in effect while you work as agent build, though given to you earlier in this conversation: plan-notes (agent plan). Set them aside until a message says they apply again.";
const RESUMED_PLAN =
  "In effect again now that you work as agent plan, as given to you earlier in this conversation: plan-notes (agent plan).";

describe("activeRulesFor: a scope narrows whatever the mode", () => {
  test("agents: [plan] alone is always-on for plan, and nothing for build or for an agent not known yet", () => {
    expect(activeRulesFor([planNotes], context(as("plan")))).toEqual([
      { rule: planNotes, reason: { kind: "always" }, scope: { agent: "plan" } },
    ]);
    expect(activeRulesFor([planNotes], context(as("build")))).toEqual([]);
    expect(activeRulesFor([planNotes], context(as()))).toEqual([]);
    expect(activeRulesFor([planNotes], { files: [] })).toEqual([]);
    // The unscoped rule applies whatever the agent, and carries no scope.
    expect(activeRulesFor([style, planNotes], context(as()))).toEqual([{ rule: style, reason: { kind: "always" } }]);
  });

  test("with globs: a file rule for plan only", () => {
    const rule = makeRule({ name: "plan-ts", agents: ["plan"], globs: ["src/**/*.ts"] });
    const file = { kind: "file", file: "src/app.ts", glob: "src/**/*.ts" };
    expect(activeRulesFor([rule], context(as("plan"), { files: ["src/app.ts"] }))).toEqual([
      { rule, reason: { kind: "conditions", met: [file] }, scope: { agent: "plan" } },
    ]);
    expect(activeRulesFor([rule], context(as("plan"), { files: ["README.md"] }))).toEqual([]);
    expect(activeRulesFor([rule], context(as("plan")))).toEqual([]);
    expect(activeRulesFor([rule], context(as("build"), { files: ["src/app.ts"] }))).toEqual([]);
    expect(activeRulesFor([rule], context(as(), { files: ["src/app.ts"] }))).toEqual([]);
    // A match recorded earlier (the working set) does not reach past the scope either.
    expect(
      activeRulesFor([rule], context(as("build"), { fileMatches: new Map([["plan-ts", file as never]]) })),
    ).toEqual([]);
  });

  test("with keywords: a keyword rule for plan only", () => {
    const rule = makeRule({ name: "plan-db", agents: ["plan"], keywords: ["migration"] });
    expect(activeRulesFor([rule], context(as("plan"), { prompt: "plan the migration" }))).toEqual([
      {
        rule,
        reason: { kind: "conditions", met: [{ kind: "keyword", keyword: "migration" }] },
        scope: { agent: "plan" },
      },
    ]);
    expect(activeRulesFor([rule], context(as("plan"), { prompt: "plan the release" }))).toEqual([]);
    expect(activeRulesFor([rule], context(as("build"), { prompt: "write the migration" }))).toEqual([]);
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
      activeRulesFor(
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
    expect(activeRulesFor([onRequest], context(as("build"), { activated }))).toEqual([
      { rule: onRequest, reason: { kind: "rule-tool" } },
    ]);
    expect(activeRulesFor([onRequest], context(as("general"), { activated }))).toEqual([
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
    expect(activeRulesFor([claudeBuild, claudeAny], context(as("build", "anthropic/claude-sonnet-4")))).toEqual([
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

describe("composeRulesMessage: switch notices", () => {
  const compose = (
    workingAs: WorkingAs,
    options: ComposeOptions = {},
    rules: readonly Rule[] = RULES,
    extra: Partial<SessionContext> = {},
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
      ` and ${300 - named} more rules for other agents or models. Set them aside until a message says they apply again.`,
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

describe("the delivery model follows the switches", () => {
  const current: ReadonlyMap<string, Rule> = held(...RULES);
  const userMessage = (composed: ComposedMessage | undefined): DeliveryEvent => ({
    type: "user-message",
    composed,
    current,
  });
  const start: SessionDelivery = { ...NEW_SESSION, stage: "empty" };
  const step = (state: SessionDelivery, workingAs: WorkingAs, rules: readonly Rule[] = RULES) => {
    const composed = composeRulesMessage(rules, context(workingAs), {
      delivered: state.delivered,
      paused: state.paused,
      listed: state.listed,
      listOnRequest: !state.listedOnRequest,
    });
    return { composed, state: advance(state, userMessage(composed)) };
  };

  test("a message that pauses a rule records it paused; the one that resumes it takes it off", () => {
    const plan = step(start, as("plan")).state;
    expect([...plan.delivered.keys()]).toEqual(["style", "plan-notes"]);
    expect(plan.paused).toEqual(new Set());
    const build = step(plan, as("build"));
    expect(build.composed?.paused).toEqual(["plan-notes"]);
    expect(build.state.paused).toEqual(new Set(["plan-notes"]));
    expect([...build.state.delivered.keys()]).toEqual(["style", "plan-notes", "build-tests"]);
    const back = step(build.state, as("plan"));
    expect(back.composed?.resumed).toEqual(["plan-notes"]);
    expect(back.state.paused).toEqual(new Set(["build-tests"]));
    // Nothing left to say while the agent stays.
    expect(step(back.state, as("plan")).composed).toBeUndefined();
  });

  test("a compaction empties what the window held: delivered, listed and paused", () => {
    const guide = makeRule({ name: "plan-guide", agents: ["plan"], alwaysApply: false, description: "Planning guide" });
    const rules = [...RULES, guide];
    const plan = step(start, as("plan"), rules).state;
    const build = step(plan, as("build"), rules).state;
    expect(build.listed).toEqual(new Set(["plan-guide"]));
    expect(build.paused).toEqual(new Set(["plan-notes", "plan-guide"]));
    const compacted = advance(build, { type: "compacted", windowStart: "msg_c", announced: true, at: 100 });
    expect(compacted.delivered.size).toBe(0);
    expect(compacted.listed.size).toBe(0);
    expect(compacted.paused.size).toBe(0);
    // The re-delivery for build holds the build rule and not the plan rule, and pauses nothing.
    const redelivery = step(compacted, as("build"), rules).composed!;
    expect(blockNames(redelivery)).toEqual(["style", "build-tests"]);
    expect(redelivery.paused).toEqual([]);
    expect(redelivery.text).not.toContain("plan-guide");
  });

  test("the history's markers restore what was listed, paused and resumed", () => {
    const read = advance(NEW_SESSION, {
      type: "window-read",
      found: [
        { rules: ["style", "plan-notes"], listed: ["plan-guide"] },
        { rules: ["build-tests"], paused: ["plan-notes", "plan-guide"] },
      ],
      settles: true,
      current,
    });
    expect([...read.delivered.keys()].sort()).toEqual(["build-tests", "plan-notes", "style"]);
    expect(read.listed).toEqual(new Set(["plan-guide"]));
    expect(read.paused).toEqual(new Set(["plan-notes", "plan-guide"]));
    // Read back, the session says nothing new while it stays on build.
    expect(step(read, as("build")).composed).toBeUndefined();
    const resumed = advance(read, {
      type: "window-read",
      found: [{ rules: [], resumed: ["plan-notes"] }],
      settles: true,
      current,
    });
    expect(resumed.paused).toEqual(new Set(["plan-guide"]));
  });

  test("a rule read with the rule tool is not paused any more", () => {
    const build = step(step(start, as("plan")).state, as("build")).state;
    expect(build.paused).toEqual(new Set(["plan-notes"]));
    const read = advance(build, { type: "rule-read", rule: planNotes });
    expect(read.paused).toEqual(new Set());
    expect(read.delivered.get("plan-notes")).toBe(planNotes);
  });

  test("a rule given again (its file changed) is not paused any more", () => {
    const build = step(step(start, as("plan")).state, as("build")).state;
    const edited = makeRule({ name: "plan-notes", agents: ["plan"], content: "Edited." });
    const back = step(build, as("plan"), [style, edited, buildTests]);
    expect(blockNames(back.composed)).toEqual(["plan-notes"]);
    expect(back.state.paused).toEqual(new Set(["build-tests"]));
  });
});

describe("property: switching among plan, build and general", () => {
  const AGENTS = ["plan", "build", "general"] as const;
  const ruleSpec = fc.record({
    agents: fc.subarray([...AGENTS]),
    onRequest: fc.boolean(),
  });

  test("in-scope rules are held and not paused, out-of-scope ones paused, each block given once per window and only in scope", () => {
    fc.assert(
      fc.property(
        fc.array(ruleSpec, { minLength: 1, maxLength: 7 }),
        fc.array(fc.constantFrom(...AGENTS), { minLength: 1, maxLength: 12 }),
        (specs, switches) => {
          const rules = specs.map((spec, i) =>
            makeRule({
              name: `r${i}`,
              content: `Rule ${i}.`,
              ...(spec.agents.length > 0 ? { agents: spec.agents } : {}),
              ...(spec.onRequest ? { alwaysApply: false, description: `About ${i}` } : {}),
            }),
          );
          const current = held(...rules);
          let state: SessionDelivery = { ...NEW_SESSION, stage: "empty" };
          const texts: string[] = [];
          for (const agent of switches) {
            const workingAs = { agent };
            const ctx = context(workingAs);
            const composed = composeRulesMessage(rules, ctx, {
              delivered: state.delivered,
              paused: state.paused,
              listed: state.listed,
              listOnRequest: !state.listedOnRequest,
            });
            state = advance(state, { type: "user-message", composed, current });
            const text = composed?.text ?? "";
            texts.push(text);
            const active = new Set(activeRulesFor(rules, ctx).map(({ rule }) => rule.name));
            for (const rule of rules) {
              const scoped = inScope(rule, workingAs);
              const where = `rule ${rule.name} (${rule.agents?.join(",") ?? "all"}) as ${agent} after ${JSON.stringify(texts.length)} steps`;
              if (scoped && active.has(rule.name)) {
                expect(state.delivered.has(rule.name), `${where}: in scope, not held`).toBe(true);
                expect(state.paused.has(rule.name), `${where}: in scope, still paused`).toBe(false);
              }
              if (state.delivered.has(rule.name) && !scoped)
                expect(state.paused.has(rule.name), `${where}: held out of scope, not paused`).toBe(true);
              if (text.includes(`<rule name="${rule.name}" `))
                expect(scoped, `${where}: block given out of scope`).toBe(true);
              // An on-request rule is listed only in scope, once in the window.
              if (text.includes(`- ${rule.name}: `)) expect(scoped, `${where}: listed out of scope`).toBe(true);
            }
          }
          for (const rule of rules) {
            const all = texts.join("\n");
            expect(
              count(all, `<rule name="${rule.name}" `),
              `block of ${rule.name} twice in one window`,
            ).toBeLessThanOrEqual(1);
            expect(count(all, `- ${rule.name}: `), `${rule.name} listed twice in one window`).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 300 },
    );
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
