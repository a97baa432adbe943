/**
 * The compose memo (session/compose-for.ts): while what it saw is unchanged,
 * a look composes nothing. Each condition kind has its part of what it sees,
 * so a change any kind reads (a record that grew, a fact that changed) is
 * never missed.
 */
import { describe, expect, test } from "vitest";
import type { FileMatch } from "../../src/conditions/files.js";
import { ACTIVATING, NARROWING } from "../../src/conditions/list.js";
import { composeFor, conditionsSeen } from "../../src/session/compose-for.js";
import { NEW_SESSION, type RuleSet } from "../../src/session/session.js";
import { makeRule } from "../support/rules.js";

const context = (fileMatches = new Map<string, FileMatch>()) => ({ files: [], fileMatches, contentMatches: new Map() });
const claude = { providerID: "anthropic", modelID: "claude-sonnet-4" };

describe("each condition kind's part of the memo", () => {
  test("every trigger that reads a record and every scope has one", () => {
    expect(Object.keys(conditionsSeen(context(), {})).sort()).toEqual(
      [...ACTIVATING.filter((kind) => kind.memo), ...NARROWING].map(({ kind }) => `condition ${kind}`).sort(),
    );
  });

  test("a record that grew, or a fact that changed, changes it; an equal fact in a new object does not", () => {
    const before = conditionsSeen(context(), { agent: "build", model: claude });
    const file: FileMatch = { kind: "file", file: "a.ts", glob: "*.ts" };
    const changed = (after: Record<string, unknown>) => Object.keys(before).filter((key) => before[key] !== after[key]);
    expect(changed(conditionsSeen(context(new Map([["r", file]])), { agent: "build", model: claude }))).toEqual([
      "condition files",
    ]);
    expect(changed(conditionsSeen(context(), { agent: "plan", model: claude }))).toEqual(["condition agents"]);
    expect(changed(conditionsSeen(context(), { agent: "build", model: { ...claude } }))).toEqual([]);
    expect(changed(conditionsSeen(context(), { agent: "build" }))).toEqual(["condition models"]);
  });
});

describe("composeFor", () => {
  const plan = makeRule({ name: "plan-notes", agents: ["plan"] });
  const rules: RuleSet = {
    list: [plan],
    byName: new Map([[plan.name, plan]]),
    names: new Set([plan.name]),
    warnings: 0,
  };

  test("a switch of agent after a quiet look composes again", () => {
    const quiet = composeFor({ ...NEW_SESSION, agent: "build" }, rules);
    expect(quiet.composed).toBeUndefined();
    expect(composeFor({ ...quiet.state, agent: "build" }, rules)).toEqual({ state: quiet.state, notes: [] });
    expect(
      composeFor({ ...quiet.state, agent: "plan" }, rules).composed?.included.map(({ rule }) => rule.name),
    ).toEqual(["plan-notes"]);
  });
});
