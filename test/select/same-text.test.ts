/**
 * Rules with one body (src/select/same-text.ts, rule-set.ts): known by the
 * rule set's index, worked out once per set; of the active rules a window
 * lacks, each text goes once, as the first rule by precedence, or not at all
 * when the window holds it already as another rule that still applies.
 */
import { describe, expect, test } from "vitest";
import type { Rule } from "../../src/rule/rule.js";
import { ruleSetIndex } from "../../src/select/rule-set.js";
import { windowNeeds, type WindowHolding } from "../../src/select/window-needs.js";
import { makeRule } from "../support/rules.js";

const BODY = "Prefer small functions.";
const style = makeRule({ name: "style", globs: ["src/**/*.ts"], content: BODY });
const codeStyle = makeRule({ name: "code-style", content: BODY });
const kilo = makeRule({ name: "kilo/style", keywords: ["style"], content: BODY });
const testing = makeRule({ name: "testing", content: "Test every branch." });
const RULES = [style, codeStyle, kilo, testing];

const held = (...rules: Rule[]) => new Map(rules.map((rule) => [rule.name, rule]));
/** What the window needs, as names: given, and given as another (`copy=as`). */
function needs(context: { files?: string[]; prompt?: string }, window: WindowHolding = {}, rules = RULES) {
  const { active, sameText, changed } = windowNeeds(rules, { files: context.files ?? [], ...context }, window);
  return {
    given: active.map(({ rule }) => rule.name),
    sameText: sameText.map(({ rule, as }) => `${rule.name}=${as.name}`),
    changed: active.filter((_, i) => changed[i]).map(({ rule }) => rule.name),
  };
}

describe("the rule set knows its bodies", () => {
  test("each rule with another's body, with every rule of that body in set order; a text of its own is not there", () => {
    const { twins } = ruleSetIndex(RULES);
    expect(twins.get(kilo)?.map((rule) => rule.name)).toEqual(["style", "code-style", "kilo/style"]);
    expect(twins.get(style)).toBe(twins.get(codeStyle));
    expect(twins.has(testing)).toBe(false);
  });

  test("the body as written is the identity: a text differing in one character is another text", () => {
    const near = makeRule({ name: "near", content: `${BODY}.` });
    expect(ruleSetIndex([codeStyle, near, testing]).twins.size).toBe(0);
  });

  test("long texts alike at both ends and in length but not in the middle are two texts; equal long texts are one", () => {
    const long = (middle: string) => `${"Start of a long rule. ".repeat(8)}${middle}${" End of it.".repeat(12)}`;
    const one = makeRule({ name: "one", content: long("Use tabs..") });
    const other = makeRule({ name: "other", content: long("Use spaces") });
    const copy = makeRule({ name: "copy", content: long("Use tabs..") });
    expect(one.content.length).toBe(other.content.length);
    const { twins } = ruleSetIndex([one, other, copy]);
    expect(twins.get(copy)?.map((rule) => rule.name)).toEqual(["one", "copy"]);
    expect(twins.has(other)).toBe(false);
  });
});

describe("each text once", () => {
  test("all copies active: the first by precedence goes, the others as it", () => {
    expect(needs({ files: ["src/a.ts"], prompt: "fix the style" })).toEqual({
      given: ["style", "testing"],
      sameText: ["code-style=style", "kilo/style=style"],
      changed: [],
    });
  });

  test("the first by precedence not active: the first copy that is gives the text", () => {
    expect(needs({ prompt: "fix the style" })).toEqual({
      given: ["code-style", "testing"],
      sameText: ["kilo/style=code-style"],
      changed: [],
    });
  });

  test("the window holds the text as another rule: nothing of it goes, whichever came first", () => {
    expect(needs({ files: ["src/a.ts"] }, { delivered: held(codeStyle, testing) })).toEqual({
      given: [],
      sameText: ["style=code-style"],
      changed: [],
    });
  });

  test("…unless the model was told that rule does not apply now, or is told so in this message: the copy's text goes", () => {
    const plan = makeRule({ name: "plan-style", agents: ["plan"], content: BODY });
    const rules = [style, plan, testing];
    const asBuild = (paused: string[]) =>
      windowNeeds(
        rules,
        { files: ["src/a.ts"], facts: { agent: "build" } },
        { delivered: held(plan, testing), paused: new Set(paused) },
      );
    for (const said of [["plan-style"], []]) {
      const { active, sameText, paused } = asBuild(said);
      expect(active.map(({ rule }) => rule.name)).toEqual(["style"]);
      expect(sameText).toEqual([]);
      expect(paused).toEqual(said.length > 0 ? [] : ["plan-style"]);
    }
  });

  test("a copy whose own file changed to the text the window holds still goes: the model is told its version changed", () => {
    const before = makeRule({ name: "code-style", content: "Old words." });
    expect(needs({}, { delivered: held(before, testing, style) }, [style, codeStyle, testing])).toEqual({
      given: ["code-style"],
      sameText: [],
      changed: ["code-style"],
    });
  });

  test("…and an earlier copy not held goes as it: the text goes once, with the rule that must go", () => {
    const before = makeRule({ name: "code-style", content: "Old words." });
    expect(needs({ files: ["src/a.ts"] }, { delivered: held(before, testing) })).toEqual({
      given: ["code-style"],
      sameText: ["style=code-style"],
      changed: ["code-style"],
    });
  });

  test("rules with texts of their own are untouched", () => {
    expect(needs({}, {}, [codeStyle, testing])).toEqual({
      given: ["code-style", "testing"],
      sameText: [],
      changed: [],
    });
  });
});
