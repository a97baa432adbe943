/**
 * A marker's `sameText` (issue 44): the active rules a composed message did
 * not give, their text being another rule's, each paired with that rule's
 * name in `sameTextAs`. Stored, read back, it says the same; damaged, the
 * pairs are dropped whole; markers from before have none and read as before.
 */
import { describe, expect, test } from "vitest";
import { rulesPanel } from "../../src/panel/rules-panel.js";
import { composeRulesMessage } from "../../src/render/compose.js";
import { asMarker, markerFor } from "../../src/session/marker.js";
import { makeRule } from "../support/rules.js";

const BODY = "Prefer small functions.";
const bare = { kind: "rules", rules: ["style"], trigger: "message" };
const stored = (fields: Record<string, unknown>) => asMarker(JSON.parse(JSON.stringify({ ...bare, ...fields })));

describe("a marker's copies", () => {
  test("markerFor names each copy with the rule whose text it is; stored and read back, the same", () => {
    const rules = [makeRule({ name: "style", content: BODY }), makeRule({ name: "code-style", content: BODY })];
    const marker = markerFor(composeRulesMessage(rules, { files: [] })!, "first-message");
    expect(marker).toMatchObject({ rules: ["style"], sameText: ["code-style"], sameTextAs: ["style"] });
    expect(marker.sameTextCount).toBeUndefined();
    expect(asMarker(JSON.parse(JSON.stringify(marker)))).toEqual(marker);
  });

  test("thousands of copies: the first 50 named, all counted", () => {
    const rules = Array.from({ length: 120 }, (_, i) => makeRule({ name: `copy-${i}`, content: BODY }));
    const marker = markerFor(composeRulesMessage(rules, { files: [] })!, "first-message");
    expect(marker.rules).toEqual(["copy-0"]);
    expect(marker.sameText).toHaveLength(50);
    expect(marker.sameTextAs).toEqual(Array(50).fill("copy-0"));
    expect(marker.sameTextCount).toBe(119);
    expect(rulesPanel([marker])?.sameTextCount).toBe(119);
  });

  test("a message without copies has no such fields", () => {
    const marker = markerFor(composeRulesMessage([makeRule({ name: "style" })], { files: [] })!, "message");
    expect(Object.keys(marker)).not.toContain("sameText");
  });

  test("damaged pairs are dropped whole, a damaged count alone; the rest of the marker kept", () => {
    for (const damaged of [
      { sameText: ["a", "b"], sameTextAs: ["style"] },
      { sameText: ["a"] },
      { sameTextAs: ["style"] },
      { sameText: "a", sameTextAs: "b" },
      { sameText: [1], sameTextAs: ["style"] },
    ])
      expect(stored({ ...damaged, offered: ["x"] })).toEqual({ ...bare, offered: ["x"] });
    expect(stored({ sameText: ["a"], sameTextAs: ["style"], sameTextCount: -1 })).toEqual({
      ...bare,
      sameText: ["a"],
      sameTextAs: ["style"],
    });
  });

  test("a marker from before reads as before: no copies in the panel", () => {
    expect(stored({})).toEqual(bare);
    expect(rulesPanel([stored({})!])).toMatchObject({ sameText: [], sameTextCount: 0 });
  });
});
