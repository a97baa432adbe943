/**
 * The rules the panel shows as the same text as another (issue 44): each
 * composed message's marker names the copies it did not give, and what
 * they are the text of; the latest says what holds now. They add nothing to
 * what the rules in context cost.
 */
import { describe, expect, test } from "vitest";
import { COMPACT_BELOW, MAX_LISTED, panelLines } from "../../src/panel/panel-lines.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";
import { ruleReadMarker, type RulesMarker } from "../../src/session/marker.js";

const given = (rules: Record<string, number>, extra: Partial<RulesMarker> = {}): RulesMarker => ({
  kind: "rules",
  rules: Object.keys(rules),
  why: Object.keys(rules).map(() => ({ reason: { kind: "always" } })),
  tokens: Object.values(rules),
  trigger: "message",
  ...extra,
});
const copies = (pairs: Record<string, string>): Partial<RulesMarker> => ({
  sameText: Object.keys(pairs),
  sameTextAs: Object.values(pairs),
});
const texts = (markers: RulesMarker[], width = 37) => panelLines(rulesPanel(markers), width).map(({ text }) => text);

describe("what the panel holds", () => {
  const first = given({ style: 40, testing: 10 }, copies({ "code-style": "style", "kilo/style": "style" }));

  test("the copies a message did not give, each with the rule whose text it is; the cost is the rules given", () => {
    expect(rulesPanel([first])).toMatchObject({
      sameText: [
        { name: "code-style", as: "style" },
        { name: "kilo/style", as: "style" },
      ],
      sameTextCount: 2,
      tokens: 50,
    });
  });

  test("the latest composed message holds; a rule given later (or read by name) leaves the list; a read resets nothing", () => {
    expect(rulesPanel([first, given({ other: 5 })])?.sameText).toEqual([]);
    expect(rulesPanel([first, ruleReadMarker("code-style", 40)])?.sameText).toEqual([
      { name: "kilo/style", as: "style" },
    ]);
    expect(
      rulesPanel([first, given({ "code-style": 40 }, { paused: ["style"], ...copies({ "kilo/style": "code-style" }) })])
        ?.sameText,
    ).toEqual([{ name: "kilo/style", as: "code-style" }]);
  });

  test("a marker that names more than it lists counts the rest", () => {
    expect(rulesPanel([given({ a: 1 }, { ...copies({ b: "a" }), sameTextCount: 300 })])?.sameTextCount).toBe(300);
  });
});

describe("the panel as lines", () => {
  test("a heading with the count, each copy and the rule whose text it is below it; no figure of their own", () => {
    expect(texts([given({ style: 40 }, copies({ "code-style": "style" }))])).toEqual([
      "Rules",
      "In context (1 · ≈ 40 tokens)",
      "• style · ≈ 40 tokens",
      "  always",
      "Same text, given once (1)",
      "• code-style",
      "  same text as style",
    ]);
  });

  test("the first ones listed, the rest counted; a name's control characters shown, not obeyed", () => {
    const many = Object.fromEntries(Array.from({ length: MAX_LISTED + 3 }, (_, i) => [`copy-${i}`, "st\u001b[2Jyle"]));
    const lines = texts([given({ style: 40 }, copies(many))]);
    expect(lines).toContain(`Same text, given once (${MAX_LISTED + 3})`);
    expect(lines.filter((line) => line.startsWith("• copy-"))).toHaveLength(MAX_LISTED);
    expect(lines).toContain("  + 3 more");
    expect(lines.join("\n")).not.toContain("\u001b");
  });

  test("narrow: counted on the line after the rules", () => {
    expect(texts([given({ style: 40 }, copies({ "code-style": "style" }))], COMPACT_BELOW - 1)).toEqual([
      "Rules · 1 · ≈40",
      "style · always",
      "1 same text",
    ]);
  });
});
