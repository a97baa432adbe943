/**
 * A marker's `tokens` (issue 43): what each rule it carries costs in the
 * window, as `ruleTokens` estimates it, so the Rules panel shows it without
 * the rules loaded. Markers written before have none, and a stored value may
 * be damaged: either way the marker reads, without figures rather than with
 * wrong ones.
 */
import { describe, expect, test } from "vitest";
import { panelLines } from "../../src/panel/panel-lines.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";
import { composeRulesMessage } from "../../src/render/compose.js";
import { ruleTokens } from "../../src/render/tokens.js";
import type { Rule } from "../../src/rule/rule.js";
import { asMarker, markerFor, ruleReadMarker, type RulesMarker } from "../../src/session/marker.js";
import { parsed } from "../support/parse.js";

const ruleOf = (text: string, name: string) => parsed(text, name).rule as Rule;
const rules = [
  ruleOf("---\nalwaysApply: true\n---\nKeep functions small.", "style"),
  ruleOf(`---\nglobs: src/**\n---\n${"Prefer the query builder. ".repeat(40)}`, "db"),
  ruleOf("---\ndescription: Release steps\nalwaysApply: false\n---\nTag, then publish.", "release"),
];
const bare = { kind: "rules", rules: ["a", "b"], trigger: "message" };
const read = (tokens: unknown) => asMarker(JSON.parse(JSON.stringify({ ...bare, tokens })));

describe("a marker's figures", () => {
  test("markerFor gives each rule it carries its ruleTokens, in the order of `rules`; an on-request rule listed has none", () => {
    const composed = composeRulesMessage(rules, { files: ["src/a.ts"] }, { listOnRequest: true });
    const marker = markerFor(composed!, "first-message");
    expect(marker.rules).toEqual(["style", "db"]);
    expect(marker.tokens).toEqual([ruleTokens(rules[0]!), ruleTokens(rules[1]!)]);
    expect(marker.tokens?.[1]).toBeGreaterThan(200);
    // Stored and read back, the panel shows what the rules cost.
    const lines = panelLines(rulesPanel([asMarker(JSON.parse(JSON.stringify(marker))) as RulesMarker]), 37);
    expect(lines.map((line) => line.text)).toEqual(
      expect.arrayContaining([
        `In context (2 · ≈ ${ruleTokens(rules[0]!) + ruleTokens(rules[1]!)} tokens)`,
        `• style · ≈ ${ruleTokens(rules[0]!)} tokens`,
        `• db · ≈ ${ruleTokens(rules[1]!)} tokens`,
      ]),
    );
  });

  test("a rule read by name carries its figure when the caller gives one", () => {
    expect(ruleReadMarker("release").tokens).toBeUndefined();
    expect(ruleReadMarker("release", 12).tokens).toEqual([12]);
  });

  test("read back: one whole count per rule is kept; absent, it stays absent", () => {
    expect(read([3, 0])).toEqual({ ...bare, tokens: [3, 0] });
    expect(asMarker(bare)).toEqual(bare);
  });

  test("a damaged figure list is left out, and the rest of the marker kept: never a figure that may be another rule's", () => {
    for (const damaged of [[3], [3, 4, 5], [3, "4"], [3, -1], [3, 1.5], [3, null], "3,4", 7, { 0: 3, 1: 4 }, null])
      expect(read(damaged)).toEqual(bare);
    const withWhy = { ...bare, rules: ["a"], why: [{ reason: { kind: "always" } }], tokens: ["x"] };
    expect(asMarker(withWhy)).toEqual({ ...bare, rules: ["a"], why: [{ reason: { kind: "always" } }] });
  });

  test("a marker without figures (written before) still gives the panel its rules, with no figure and no total", () => {
    const panel = rulesPanel([asMarker(bare) as RulesMarker]);
    expect(panel?.tokens).toBe(0);
    expect(panelLines(panel, 37).map((line) => line.text)).toEqual(["Rules", "In context (2)", "• a", "• b"]);
  });
});
