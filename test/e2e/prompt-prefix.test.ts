/**
 * The prompt-cache yardstick of the e2e test and the bench
 * (test/e2e/harness/prompt-prefix.ts): what counts as a request extending the
 * one before, how a break is told, and the reusable share.
 */
import { describe, expect, test } from "vitest";
import type { ChatRequestBody } from "./harness/fake-model.js";
import { firstDifference, reusablePrefixShare } from "./harness/prompt-prefix.js";

const request = (system: string, ...messages: string[]): ChatRequestBody => ({
  tools: [{ type: "function", function: { name: "read" } }],
  messages: [
    { role: "system", content: system },
    ...messages.map((content, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content })),
  ],
});

describe("firstDifference", () => {
  test("the same request plus new messages extends it", () => {
    expect(firstDifference(request("You help.", "hi"), request("You help.", "hi", "hello", "more"))).toBeUndefined();
  });

  test("a changed system prompt, a changed tool list, a rewritten or missing earlier message: each named, with where it parts", () => {
    expect(firstDifference(request("Today is Monday.", "hi"), request("Today is Tuesday.", "hi", "x"))).toMatch(
      /^the system prompt changed at character \d+: was .*Monday.*, now .*Tuesday/,
    );
    expect(firstDifference(request("S", "hi"), { ...request("S", "hi"), tools: [] })).toMatch(/^the tools changed/);
    expect(firstDifference(request("S", "hi", "ok", "next"), request("S", "hi", "RULES", "ok", "next"))).toMatch(
      /^message 2 of 3 changed .*was .*ok.*now .*RULES/,
    );
    expect(firstDifference(request("S", "hi", "ok"), request("S", "hi"))).toBe(
      "message 2 of 2 is gone (1 messages now)",
    );
  });
});

describe("reusablePrefixShare", () => {
  test("the first request reuses nothing; each later one what it shares from the start with the one before", () => {
    const first = request("S", "hi");
    const second = request("S", "hi", "ok", "next");
    const { reusable, total, share } = reusablePrefixShare([first, second]);
    expect(reusable).toBeGreaterThan(0);
    expect(total).toBeGreaterThan(reusable);
    expect(share).toBeCloseTo(reusable / total);
    // A message put in the middle costs everything after it.
    const broken = reusablePrefixShare([first, request("S", "RULES", "hi", "ok", "next")]);
    expect(broken.reusable).toBeLessThan(reusable);
    expect(reusablePrefixShare([])).toEqual({ reusable: 0, total: 0, share: 0 });
  });
});
