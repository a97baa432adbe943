import fc from "fast-check";
import { beforeEach, describe, expect, test, vi } from "vitest";
import { composeRulesMessage, DEFAULT_MAX_MESSAGE_BYTES } from "../../src/render/compose.js";
import { renderRuleSection, renderRulesMessage } from "../../src/render/message.js";
import type { Rule } from "../../src/rule/rule.js";
import { parseRulesMessage } from "../support/rules-message.js";
import { bytes, expectAccountedFor, includedNames, names, none, onRequest, sized } from "../support/compose-rules.js";
import { makeRule } from "../support/rules.js";

// Counts how many rule blocks the composer renders: only those it keeps, each once, whatever the budget.
vi.mock("../../src/render/message.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/render/message.js")>();
  return { ...original, renderRuleSection: vi.fn(original.renderRuleSection) };
});

beforeEach(() => {
  vi.mocked(renderRuleSection).mockClear();
});

/** `size` characters of `fill` that begin with `i`: rules of the same size are not copies of one text (same-text.ts). */
const ownText = (i: number, fill: string, size: number) => String(i).padEnd(size, fill);

describe("the normal case is the message as rendered before budgets existed", () => {
  test("all rules and the on-request list, byte for byte", () => {
    const rules = [makeRule({ name: "a", scope: "global" }), makeRule({ name: "b" }), onRequest("sec", "Secrets")];
    const composed = composeRulesMessage(rules, none, { listOnRequest: true })!;
    expect(composed.text).toBe(renderRulesMessage(rules.slice(0, 2), { onRequest: [rules[2] as Rule] }));
    expect(composed.removed).toEqual([]);
    expect(composed.leftOut).toEqual([]);
  });

  test("a rule left out is named after the rules, as before", () => {
    const rules = [sized("big", 3000, 10), makeRule({ name: "important", priority: 90 }), makeRule({ name: "style" })];
    const composed = composeRulesMessage(rules, none, { maxBytes: 1500 })!;
    expect(includedNames(composed)).toEqual(["important", "style"]);
    expect(composed.text).toBe(
      renderRulesMessage([rules[1] as Rule, rules[2] as Rule], { leftOut: [{ name: "big" }] }),
    );
  });
});

describe("the budget is worked out in one pass", () => {
  test("10,000 always-on rules: only the blocks kept are rendered, each once; the message within budget, every rule included or left out", () => {
    const rules = Array.from({ length: 10_000 }, (_, i) =>
      makeRule({ name: `rule-${i}`, priority: 1 + (i % 100), content: `Rule number ${i}. ${"y".repeat(i % 300)}` }),
    );
    const composed = composeRulesMessage(rules, none, { listOnRequest: true })!;
    expect(vi.mocked(renderRuleSection)).toHaveBeenCalledTimes(composed.included.length);
    expect(new Set(vi.mocked(renderRuleSection).mock.calls.map(([rule]) => rule))).toEqual(
      new Set(composed.included.map(({ rule }) => rule)),
    );
    expect(bytes(composed.text)).toBeLessThanOrEqual(DEFAULT_MAX_MESSAGE_BYTES);
    expectAccountedFor(composed, rules);
    expect(composed.included.length).toBeGreaterThan(0);
    // The highest priority goes first.
    expect(composed.leftOut.some((rule) => rule.priority === 100)).toBe(false);
    expect(composed.text).toMatch(/more not named here\. Read each with the `rule` tool/);
  });
});

describe("backfill", () => {
  test("a large rule that does not fit is left out; smaller, lower-priority rules after it still go in", () => {
    const rules = [
      sized("high", 2000, 90),
      sized("large", 4200, 60),
      sized("small-1", 1000, 20),
      sized("small-2", 1000, 10),
    ];
    const composed = composeRulesMessage(rules, none, { maxBytes: 6000 })!;
    expect(includedNames(composed)).toEqual(["high", "small-1", "small-2"]);
    expect(names(composed.leftOut)).toEqual(["large"]);
    expect(composed.text).toContain(
      "Also in force, left out of this message to keep it short: large. Read each with the `rule` tool",
    );
    expect(bytes(composed.text)).toBeLessThanOrEqual(6000);
  });

  test("no rule is left out while the message leaves room for it: the space kept for the left-out notice and not used goes to rules", () => {
    const sizes = [49, 49, 49, 49, 49, 790, 49];
    const found = sizes.map((size, i) =>
      makeRule({ name: `r${i}`, priority: size > 49 ? 2 : 1, content: `${ownText(i, "x", size)}.` }),
    );
    const composed = composeRulesMessage(found, none, { maxBytes: 1500 })!;
    // Before, r0 was left out too, with 141 bytes free and its block 138.
    expect(includedNames(composed)).toEqual(["r0", "r5"]);
    expect(names(composed.leftOut)).toEqual(["r1", "r2", "r3", "r4", "r6"]);
    fc.assert(
      fc.property(
        fc.array(fc.record({ size: fc.integer({ min: 0, max: 5000 }), priority: fc.integer({ min: 1, max: 100 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 1500, max: 20_000 }),
        (specs, maxBytes) => {
          const rules = specs.map(({ size, priority }, i) =>
            makeRule({ name: `r${i}`, priority, content: `${ownText(i, "x", size)}.` }),
          );
          const composed = composeRulesMessage(rules, none, { maxBytes })!;
          const free = maxBytes - bytes(composed.text);
          for (const rule of composed.leftOut)
            expect(bytes(renderRuleSection(rule)) + 2, `${rule.name} left out with ${free} bytes free`).toBeGreaterThan(
              free,
            );
        },
      ),
      { numRuns: 500 },
    );
  });

  test("the message keeps the order of the rules given, not the order they were chosen in", () => {
    const rules = [sized("low", 500, 10), sized("mid", 3000, 50), sized("top", 500, 90)];
    const composed = composeRulesMessage(rules, none, { maxBytes: 2000 })!;
    expect(includedNames(composed)).toEqual(["low", "top"]);
    expect(names(parseRulesMessage(composed.text))).toEqual(["low", "top"]);
  });
});

describe("the on-request list counts against the budget", () => {
  const many = Array.from({ length: 3000 }, (_, i) =>
    onRequest(`topic-${i}`, `Conventions for topic number ${i} of the project`),
  );

  test("3,000 on-request rules: the list is cut at whole entries and says how many more there are", () => {
    const composed = composeRulesMessage([makeRule({ name: "style" }), ...many], none, { listOnRequest: true })!;
    expect(bytes(composed.text)).toBeLessThanOrEqual(DEFAULT_MAX_MESSAGE_BYTES);
    expect(composed.onRequest.length).toBeGreaterThan(100);
    expect(composed.onRequest.length).toBeLessThan(3000);
    const more = (3000 - composed.onRequest.length).toLocaleString("en-US");
    const last = composed.onRequest[composed.onRequest.length - 1] as Rule;
    expect(composed.text).toContain(
      `\n- ${last.name}: ${last.description}\n…and ${more} more rules to read on request, not listed here to keep this message short; ` +
        "the `rule` tool, given a name that is no rule's, answers with the names of the rules (those beginning with it, when there are any).\n</rulebook>",
    );
    expect(composed.text).not.toContain(`- topic-${composed.onRequest.length}:`);
    expect(includedNames(composed)).toEqual(["style"]);
  });

  test("rules come first, but the list keeps a quarter of the budget", () => {
    const rules = Array.from({ length: 100 }, (_, i) => sized(`always-${i}`, 1000));
    const maxBytes = 16_000;
    const composed = composeRulesMessage([...rules, ...many], none, { listOnRequest: true, maxBytes })!;
    expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
    const list = composed.text.slice(composed.text.indexOf("Rules to read on request:"));
    expect(bytes(list)).toBeGreaterThan(maxBytes / 4 - 100);
    expect(composed.included.length).toBeGreaterThan(5);
  });

  test("a short list takes only its own size; space the rules leave goes to the list", () => {
    const composed = composeRulesMessage([sized("a", 1000), ...many.slice(0, 3)], none, {
      listOnRequest: true,
      maxBytes: 2000,
    })!;
    expect(names(composed.onRequest)).toEqual(["topic-0", "topic-1", "topic-2"]);
    expect(composed.text).not.toContain("more rules to read on request");
  });

  test("an entry too long for the list's share waits: the rules fill the message, the list is not sent (the caller lists it later)", () => {
    const a = sized("a", 900);
    const maxBytes = bytes(renderRulesMessage([a])) + 450;
    const composed = composeRulesMessage([a, onRequest("x", "d".repeat(600))], none, {
      listOnRequest: true,
      maxBytes,
    })!;
    expect(includedNames(composed)).toEqual(["a"]);
    expect(composed.onRequest).toEqual([]);
    expect(composed.text).not.toContain("Rules to read on request");
    expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
  });

  test("the list's share is kept even when that leaves a rule out", () => {
    const a = sized("a", 900);
    const maxBytes = bytes(renderRulesMessage([a])) + 100;
    const composed = composeRulesMessage([a, onRequest("x")], none, { listOnRequest: true, maxBytes })!;
    expect(names(composed.leftOut)).toEqual(["a"]);
    expect(names(composed.onRequest)).toEqual(["x"]);
    expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
  });
});

describe("the left-out notice is bounded", () => {
  test("it names rules up to a bounded size, then counts the rest; every left-out rule is still reported", () => {
    const rules = Array.from({ length: 2000 }, (_, i) =>
      makeRule({ name: `a-rather-long-rule-name-number-${i}`, content: ownText(i, "z", 400) }),
    );
    const maxBytes = 20_000;
    const composed = composeRulesMessage(rules, none, { maxBytes })!;
    expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
    expect(composed.included.length + composed.leftOut.length).toBe(2000);
    const notice =
      /Also in force, left out of this message to keep it short: (.*) and ([\d,]+) more not named here\./.exec(
        composed.text,
      );
    expect(notice).not.toBeNull();
    const named = (notice?.[1] ?? "").split(", ");
    expect(named[0]).toBe(composed.leftOut[0]?.name);
    expect(named.length + Number((notice?.[2] ?? "").replace(/,/g, ""))).toBe(composed.leftOut.length);
    expect(bytes(notice?.[0] ?? "")).toBeLessThanOrEqual(2048 + 200);
    expect(composed.text).toContain(
      "the `rule` tool, given a name that is no rule's, answers with the names of the rules (those beginning with it, when there are any).",
    );
  });
});

describe("property: within budget, every active rule accounted for", () => {
  const spec = fc.record({
    rules: fc.array(
      fc.record({
        size: fc.nat({ max: 4000 }),
        priority: fc.integer({ min: 1, max: 100 }),
        kind: fc.constantFrom("always", "always", "always", "on-request"),
        nameLength: fc.integer({ min: 1, max: 40 }),
      }),
      { maxLength: 40 },
    ),
    maxBytes: fc.integer({ min: 200, max: 30_000 }),
    listOnRequest: fc.boolean(),
  });

  test("random sizes, priorities and budgets", () => {
    fc.assert(
      fc.property(spec, ({ rules: specs, maxBytes, listOnRequest }) => {
        const rules = specs.map(({ size, priority, kind, nameLength }, i) => {
          const name = `${i}-${"n".repeat(nameLength)}`;
          return kind === "always"
            ? makeRule({ name, priority, content: ownText(i, "c", size) })
            : makeRule({ name, priority, alwaysApply: false, description: "d".repeat(1 + (size % 200)) });
        });
        const active = rules.filter((rule) => rule.alwaysApply !== false);
        const composed = composeRulesMessage(rules, none, { maxBytes, listOnRequest });
        if (!composed) {
          expect(active.length === 0 && (!listOnRequest || active.length === rules.length)).toBe(true);
          return;
        }
        // The smallest message that can say anything: the header and every rule counted as left out.
        const floor = bytes(renderRulesMessage([], { leftOutMore: active.length }));
        if (maxBytes >= floor) expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
        expectAccountedFor(composed, active);
        for (const listed of composed.onRequest) expect(composed.text).toContain(`\n- ${listed.name}: `);
        // When the whole message fits, it is the message with nothing held back.
        const whole = renderRulesMessage(active, {
          onRequest: listOnRequest ? rules.filter((rule) => rule.alwaysApply === false) : [],
        });
        if (bytes(whole) <= maxBytes) expect(composed.text).toBe(whole);
      }),
      { numRuns: 1000 },
    );
  });

  test("with rules the session holds, holds in an older version, or held and since deleted", () => {
    const held = fc.constantFrom("no", "same", "older");
    fc.assert(
      fc.property(
        fc.array(fc.record({ size: fc.nat({ max: 3000 }), priority: fc.integer({ min: 1, max: 100 }), held }), {
          maxLength: 30,
        }),
        fc.array(fc.string({ minLength: 1, maxLength: 40 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 30_000 }),
        (specs, deletedNames, extra) => {
          const rules = specs.map(({ size, priority }, i) =>
            makeRule({ name: `r${i}`, priority, content: ownText(i, "c", size) }),
          );
          const delivered = new Map<string, Rule>();
          specs.forEach(({ held }, i) => {
            const rule = rules[i] as Rule;
            if (held === "same") delivered.set(rule.name, rule);
            if (held === "older") delivered.set(rule.name, { ...rule });
          });
          const deleted = [...new Set(deletedNames.map((name) => `gone-${name}`))];
          for (const name of deleted) delivered.set(name, makeRule({ name }));
          // Generous room for the header and the bounded notices.
          const maxBytes = bytes(renderRulesMessage([])) + 3000 + extra;
          const composed = composeRulesMessage(rules, none, { delivered, maxBytes });
          const pending = rules.filter((rule) => delivered.get(rule.name) !== rule);
          if (!composed) {
            expect(pending.length + deleted.length).toBe(0);
            return;
          }
          expect(bytes(composed.text)).toBeLessThanOrEqual(maxBytes);
          expect(composed.removed).toEqual(deleted);
          expectAccountedFor(composed, pending);
          const replaced = includedNames(composed).filter((name) => delivered.has(name));
          if (replaced.length > 0) expect(composed.text).toContain(`The rule file of ${replaced.join(", ")} changed:`);
        },
      ),
      { numRuns: 300 },
    );
  });
});
