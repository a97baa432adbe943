/**
 * What a rules message says of the rules a session already holds
 * (render/compose.ts with select/window-needs.ts): held rules are known by
 * identity, a changed one is given again with a notice, a deleted one is
 * announced, all within the budget.
 */
import { describe, expect, test } from "vitest";
import { composeRulesMessage } from "../../src/render/compose.js";
import { MESSAGE_HEADER, renderRulesMessage } from "../../src/render/message.js";
import type { Rule } from "../../src/rule/rule.js";
import { bytes, held, includedNames, names, none, onRequest, sized } from "../support/compose-rules.js";
import { makeRule } from "../support/rules.js";

describe("delivered rules are known by identity", () => {
  const style = makeRule({ name: "style", content: "Small functions." });
  const ts = makeRule({ name: "typescript", content: "Strict." });
  const sec = onRequest("security", "Secrets");

  test("rules the session holds, as the same objects, are not sent or listed again", () => {
    const delivered = held({ style, typescript: ts, security: sec });
    expect(composeRulesMessage([style, ts, sec], none, { delivered, listOnRequest: true })).toBeUndefined();
    const partly = composeRulesMessage([style, ts, sec], none, { delivered: held({ style }), listOnRequest: true })!;
    expect(includedNames(partly)).toEqual(["typescript"]);
    expect(names(partly.onRequest)).toEqual(["security"]);
  });

  test("a new object under a held name replaces it, with the change notice; equal text is still a new version", () => {
    const edited = { ...style, content: "Smaller functions." };
    const composed = composeRulesMessage([edited, ts], none, { delivered: held({ style, typescript: ts }) })!;
    expect(includedNames(composed)).toEqual(["style"]);
    expect(composed.text).toBe(
      renderRulesMessage([edited], {
        notice: "The rule file of style changed: the version below replaces the one you were given earlier.",
      }),
    );
    const copy = { ...ts };
    const again = composeRulesMessage([style, copy], none, { delivered: held({ style, typescript: ts }) })!;
    expect(includedNames(again)).toEqual(["typescript"]);
  });

  test("a held name no rule has any more is announced as deleted, even with nothing else to say", () => {
    const composed = composeRulesMessage([style], none, { delivered: held({ style, old: ts }) })!;
    expect(composed.removed).toEqual(["old"]);
    expect(composed.included).toEqual([]);
    expect(composed.text).toBe(
      `<rulebook>\n${MESSAGE_HEADER}\n\nThe rule file of old was deleted: that rule no longer applies.\n</rulebook>`,
    );
  });

  test("changed and deleted together, in today's wording", () => {
    const edited = { ...ts, content: "Stricter." };
    const composed = composeRulesMessage([style, edited], none, {
      delivered: held({ style, typescript: ts, gone: sec }),
    })!;
    expect(composed.removed).toEqual(["gone"]);
    expect(composed.text.split("\n")[3]).toBe(
      "The rule file of typescript changed: the version below replaces the one you were given earlier. The rule file of gone was deleted: that rule no longer applies.",
    );
  });

  test("a changed on-request rule is listed again", () => {
    const composed = composeRulesMessage([style, { ...sec, description: "Secrets, now with vaults" }], none, {
      delivered: held({ style, security: sec }),
      listOnRequest: true,
    })!;
    expect(names(composed.onRequest)).toEqual(["security"]);
    expect(composed.text).toContain("- security: Secrets, now with vaults");
  });

  test("a changed rule left out for the budget is named first, saying the version the session has no longer applies", () => {
    const big = sized("big", 3000, 10);
    const composed = composeRulesMessage([style, big, sized("other", 3000, 10)], none, {
      delivered: held({ big: sized("big", 100, 10) }),
      maxBytes: 1500,
    })!;
    expect(names(composed.leftOut)).toEqual(["big", "other"]);
    expect(composed.text).toContain(
      "left out of this message to keep it short: big (its file changed since you were given it: the version you have no longer applies), other.",
    );
    expect(composed.text).not.toContain("The rule file of big changed");
  });

  test("the change notice's names count against the budget: at every budget near the full size, the message fits", () => {
    const rules = Array.from({ length: 20 }, (_, i) =>
      makeRule({ name: `changed-rule-with-a-long-name-${"n".repeat(40)}-${i}`, content: "c".repeat(100) }),
    );
    const delivered = new Map(rules.map((rule) => [rule.name, { ...rule }] as const));
    const whole = bytes(composeRulesMessage(rules, none, { delivered, maxBytes: 1e9 })!.text);
    for (let maxBytes = whole - 3000; maxBytes <= whole + 10; maxBytes += 7) {
      const composed = composeRulesMessage(rules, none, { delivered, maxBytes })!;
      expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
      expect(composed.included.length + composed.leftOut.length).toBe(20);
    }
  });

  test("many deletions: some named, the rest counted, all reported as announced, the message within budget", () => {
    const delivered = new Map<string, Rule>(
      Array.from({ length: 3000 }, (_, i) => [`deleted-rule-${i}`, style] as const),
    );
    const composed = composeRulesMessage([style], none, { delivered, maxBytes: 8000 })!;
    expect(composed.removed).toHaveLength(3000);
    expect(bytes(composed.text)).toBeLessThanOrEqual(8000);
    expect(composed.text).toMatch(
      /The rule files of deleted-rule-0, deleted-rule-1, .* and [\d,]+ more rules you were given earlier were deleted/,
    );
    expect(composed.text).toContain("any rule you were given that the `rule` tool no longer knows is one of them");
  });
});
