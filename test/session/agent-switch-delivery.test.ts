/**
 * Switching agents and models (issue 13), without OpenCode: what the
 * session's delivery model holds as the session switches: the window's state
 * (src/session/window-state.ts), moved by the session's step
 * (src/session/step.ts) on each rules message composed for it
 * (src/render/compose.ts).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { SessionFacts } from "../../src/conditions/list.js";
import { composeRulesMessage, type ComposedMessage } from "../../src/render/compose.js";
import type { Rule } from "../../src/rule/rule.js";
import { activeRulesAmong } from "../../src/select/active.js";
import { inScope } from "../../src/select/scope.js";
import { NEW_SESSION as NEW_SESSION_STATE } from "../../src/session/session.js";
import { step as stepSession } from "../../src/session/step.js";
import {
  NEW_WINDOW as NEW_SESSION,
  type WindowEvent as DeliveryEvent,
  type WindowState as SessionDelivery,
} from "../../src/session/window-state.js";
import { as, blockNames, buildTests, context, count, held, planNotes, RULES, style } from "../support/agent-switch.js";
import { makeRule } from "../support/rules.js";

/** The session model's step, as it moves the window. */
const advance = (window: SessionDelivery, event: DeliveryEvent): SessionDelivery =>
  stepSession({ ...NEW_SESSION_STATE, window }, event).state.window;

describe("the delivery model follows the switches", () => {
  const current: ReadonlyMap<string, Rule> = held(...RULES);
  const userMessage = (composed: ComposedMessage | undefined): DeliveryEvent => ({
    type: "user-message",
    composed,
    current,
  });
  const start: SessionDelivery = { ...NEW_SESSION, stage: "empty" };
  const step = (state: SessionDelivery, workingAs: SessionFacts, rules: readonly Rule[] = RULES) => {
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
            const active = new Set(activeRulesAmong(rules, ctx).map(({ rule }) => rule.name));
            for (const rule of rules) {
              const scoped = inScope(rule, workingAs);
              const where = `rule ${rule.name} (${rule.conditions.agents?.join(",") ?? "all"}) as ${agent} after ${JSON.stringify(texts.length)} steps`;
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
