/** Fail closed (conditions/lost.ts): a rule that loses a trigger never applies more widely than written. */
import { describe, expect, test } from "vitest";
import { withoutLostCondition } from "../../src/conditions/lost.js";
import { nowAppliesText } from "../../src/rule/warning-words.js";

describe("withoutLostCondition", () => {
  test("alwaysApply: true stays as it is", () => {
    expect(withoutLostCondition({ keywords: ["k"] }, { alwaysApply: true, match: "any" })).toBeUndefined();
  });

  test("match any: the triggers left apply; keywords alone are named", () => {
    const scoped = { agents: ["plan"] };
    expect(withoutLostCondition({ keywords: ["k"], ...scoped }, { alwaysApply: undefined, match: "any" })).toEqual({
      conditions: { keywords: ["k"], agents: ["plan"] },
      alwaysApply: undefined,
      applies: { onlyBy: "keywords" },
    });
    const [files] = [{ files: ["src/**"] }];
    expect(withoutLostCondition(files, { alwaysApply: undefined, match: "any" })?.applies).toBe("by-other-conditions");
    expect(withoutLostCondition({ ...files, keywords: ["k"] }, { alwaysApply: false, match: "any" })?.applies).toBe(
      "by-other-conditions",
    );
  });

  test("match all, or no trigger left: every trigger goes, the scopes stay, and it waits to be asked for", () => {
    expect(
      withoutLostCondition(
        { files: ["src/**"], keywords: ["k"], models: ["openai/*"] },
        { alwaysApply: undefined, match: "all", description: "d" },
      ),
    ).toEqual({ conditions: { models: ["openai/*"] }, alwaysApply: false, applies: "on-request" });
    expect(withoutLostCondition({}, { alwaysApply: undefined, match: "any" })?.applies).toBe("when-mentioned");
  });

  test("in words", () => {
    expect(nowAppliesText({ onlyBy: "keywords" })).toBe("applies only by its keywords");
    expect(nowAppliesText({ onlyBy: "files" })).toBe("applies only by its other conditions");
    expect(nowAppliesText("on-request")).toBe("applies only on request");
  });
});
