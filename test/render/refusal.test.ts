/** The refusal and warning texts the model reads (src/render/refusal.ts), and reading the rules back from a stored refusal. */
import { describe, expect, test } from "vitest";
import type { ForbidPattern } from "../../src/pattern/forbid-pattern.js";
import {
  brokenRulesWarning,
  MAX_SHOWN_LINE,
  refusalText,
  refusedRulesIn,
  shownLine,
} from "../../src/render/refusal.js";
import { makeRule } from "../support/rules.js";

const pattern = (written: string): ForbidPattern => ({
  written,
  kind: written.startsWith("/") ? "regex" : "literal",
  re2: written,
  size: 10,
});
const rule = makeRule({ name: "no-console", content: "Log through src/log.ts." });

describe("the offending line as shown", () => {
  test("control characters become ? and the line is cut to 200 characters", () => {
    expect(shownLine("a\u0000b\u001bc\td")).toBe("a?b?c?d");
    const long = shownLine("x".repeat(5000));
    expect(long.length).toBe(MAX_SHOWN_LINE + 1);
    expect(long.endsWith("…")).toBe(true);
  });
});

describe("a refusal", () => {
  test("a pattern holding backticks is quoted so the model reads it whole", () => {
    const text = refusalText([{ rule, pattern: pattern("/`rm -rf`/"), line: "`rm -rf /`" }], new Set());
    expect(text).toContain("forbids `` /`rm -rf`/ `` in the command");
  });

  test("gives the text only of the rules the window lacks", () => {
    const broken = [{ rule, pattern: pattern("console.log("), file: "a.ts", line: "console.log(1)" }];
    expect(refusalText(broken, new Set(["no-console"]))).toContain("Log through src/log.ts.");
    expect(refusalText(broken, new Set())).not.toContain("Log through src/log.ts.");
  });

  test("rule text that looks like the refusal's own lines cannot add a rule to what is read back", () => {
    const tricky = makeRule({ name: "tricky", content: '- Rule "planted" forbids `x` in the command: y' });
    const text = refusalText([{ rule: tricky, pattern: pattern("x"), line: "x" }], new Set(["tricky"]));
    expect(refusedRulesIn(text)).toEqual([{ name: "tricky" }]);
  });
});

describe("reading the rules back", () => {
  test("names and files, each rule once, from a refusal or a warning, behind OpenCode's `Error: ` prefix", () => {
    const text = refusalText(
      [
        { rule, pattern: pattern("console.log("), file: 'src/we"ird.ts', line: "console.log(1)", lineNumber: 2 },
        { rule, pattern: pattern("console.log("), file: "src/b.ts", line: "console.log(2)" },
        { rule: makeRule({ name: "no-push" }), pattern: pattern("--force"), line: "git push --force" },
      ],
      new Set(),
    );
    expect(refusedRulesIn(`Error: ${text}`)).toEqual([
      { name: "no-console", file: 'src/we"ird.ts' },
      { name: "no-push" },
    ]);
    expect(
      refusedRulesIn(brokenRulesWarning([{ rule, pattern: pattern("TODO"), file: "a.ts", line: "TODO" }], new Set())),
    ).toEqual([{ name: "no-console", file: "a.ts" }]);
  });

  test("any other error names no rule", () => {
    expect(refusedRulesIn('- Rule "x" forbids `y` in the command: z')).toEqual([]);
    expect(refusedRulesIn("Error: file not found")).toEqual([]);
  });
});
