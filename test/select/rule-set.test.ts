import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Rule } from "../../src/rule/rule.js";
import { matchNewFiles, type FileMatch } from "../../src/conditions/files.js";
import { activeRulesAmong, whyRuleApplies, type ActiveRule, type SelectionContext } from "../../src/select/active.js";
import type { ActivationReason } from "../../src/select/reasons.js";
import { mergePlaces, ruleSetIndex } from "../../src/select/rule-set.js";
import { makeRule } from "../support/rules.js";

/** activeRulesAmong without the rule set's index: every rule asked. */
function plainActiveRules(rules: readonly Rule[], context: SelectionContext): ActiveRule[] {
  const materialised = { ...context, files: [...context.files] };
  return rules.flatMap((rule) => {
    const reason = whyRuleApplies(rule, materialised);
    return reason === undefined ? [] : [{ rule, reason }];
  });
}

const name = fc.constantFrom("a", "b", "c", "d", "e");
const rule = fc
  .record({
    name,
    globs: fc.array(fc.constantFrom("src/**/*.ts", "*.md", "lib/*", "!src/**", "{a,b}/**"), { maxLength: 2 }),
    keywords: fc.array(fc.constantFrom("deploy", "topic-5", "c++", "Größe", "数据库", " "), { maxLength: 2 }),
    alwaysApply: fc.constantFrom(undefined, true, false),
    description: fc.constantFrom(undefined, "", "When it matters"),
    match: fc.constantFrom("any" as const, "all" as const),
  })
  .map((spec) => makeRule(spec));
const file = fc.constantFrom("src/x.ts", "README.md", "lib/y.js", "a/z", "docs/q.txt");
const prompt = fc.constantFrom(undefined, "", "please DEPLOY topic-5", "c++ und größe", "请修改数据库", "nothing");
const reason: fc.Arbitrary<ActivationReason> = fc.constantFrom(
  { kind: "rule-tool" as const },
  { kind: "always" as const },
);

describe("the rule set's index gives the same active rules as asking every rule", () => {
  test("property: activeRulesAmong, with and without rules skipped, with files, earlier file matches, mentions, activations and a prompt", () => {
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 10 }),
        fc.array(file, { maxLength: 2 }),
        fc.array(file, { maxLength: 3 }),
        prompt,
        fc.array(name, { maxLength: 2 }),
        fc.array(fc.tuple(name, reason), { maxLength: 2 }),
        fc.func(fc.boolean()),
        (rules, files, seen, words, mentioned, activated, skip) => {
          const fileMatches = new Map<string, FileMatch>();
          matchNewFiles(rules, seen, fileMatches);
          const context: SelectionContext = {
            files,
            prompt: words,
            mentioned: new Set(mentioned),
            activated: new Map(activated),
            fileMatches,
          };
          expect(activeRulesAmong(rules, context)).toEqual(plainActiveRules(rules, context));
          expect(activeRulesAmong(rules, { ...context, files: [] })).toEqual(
            plainActiveRules(rules, { ...context, files: [] }),
          );
          const kept = (candidate: Rule) => !skip(candidate.name);
          expect(activeRulesAmong(rules, context, (candidate) => !kept(candidate))).toEqual(
            plainActiveRules(rules.filter(kept), context),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("the index is made once per rules array, and again for an array that grew", () => {
    const rules = [makeRule({ name: "a" }), makeRule({ name: "b", alwaysApply: false, description: "d" })];
    const index = ruleSetIndex(rules);
    expect(ruleSetIndex(rules)).toBe(index);
    expect(index.always).toEqual([0]);
    expect(index.onRequest).toEqual([rules[1]]);
    rules.push(makeRule({ name: "c", globs: ["*.ts"] }));
    expect(ruleSetIndex(rules)).not.toBe(index);
    expect(ruleSetIndex(rules).conditional).toEqual([2]);
  });

  test("places merge in order, each once", () => {
    expect(mergePlaces([1, 4, 7], [0, 4, 4, 8])).toEqual([0, 1, 4, 7, 8]);
    expect(mergePlaces([], [2, 2])).toEqual([2]);
  });
});
