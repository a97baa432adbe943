/**
 * A text two rules share, in the budget (src/render/compose.ts, fit.ts):
 * sized once, so a copy never pushes another rule out of the message, and
 * a copy of what the window holds is no reason for a message.
 */
import { describe, expect, test } from "vitest";
import { composeRulesMessage } from "../../src/render/compose.js";
import { renderRulesMessage } from "../../src/render/message.js";
import { bytes, includedNames, names, none } from "../support/compose-rules.js";
import { makeRule } from "../support/rules.js";

const BODY = `Long shared guidance. ${"word ".repeat(600)}`.trim();
const cursorCopy = makeRule({ name: "style", source: "cursor", content: BODY });
const claudeCopy = makeRule({ name: "code-style", source: "claude", content: BODY });
const testing = makeRule({ name: "testing", priority: 10, content: `Test every branch. ${"t".repeat(800)}` });

describe("the budget counts a shared text once", () => {
  test("a budget with room for the text once holds every rule: the copy takes no room, and leaves none out", () => {
    const once = renderRulesMessage([cursorCopy, testing]);
    const composed = composeRulesMessage([cursorCopy, claudeCopy, testing], none, { maxBytes: bytes(once) });
    expect(composed?.text).toBe(once);
    expect(includedNames(composed!)).toEqual(["style", "testing"]);
    expect(composed?.leftOut).toEqual([]);
    expect(composed?.sameText.map(({ rule, as }) => [rule.name, as.name])).toEqual([["code-style", "style"]]);
  });

  test("counted twice, that budget would leave a rule out", () => {
    const once = renderRulesMessage([cursorCopy, testing]);
    const other = makeRule({ name: "code-style", source: "claude", content: `${BODY}!` });
    const composed = composeRulesMessage([cursorCopy, other, testing], none, { maxBytes: bytes(once) });
    expect(names(composed?.leftOut ?? [])).not.toEqual([]);
  });

  test("with the text in the window as the one rule, its copy alone makes no message", () => {
    const delivered = new Map([["style", cursorCopy]]);
    expect(composeRulesMessage([cursorCopy, claudeCopy], none, { delivered })).toBeUndefined();
  });
});
