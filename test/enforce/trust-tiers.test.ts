/**
 * What forbids is never taken away by something less trusted: a shadowed
 * user rule keeps enforcing, the user's patterns are checked first with their
 * own share of the time, and a check lets the event loop run between slices.
 */
import { describe, expect, test } from "vitest";
import { type CheckBudget, checkedViolations, type Forbidding } from "../../src/enforce/violations.js";
import { enforcingRules, resolvePrecedence } from "../../src/formats/load.js";
import { readForbidPattern, type ForbidPattern } from "../../src/pattern/forbid-pattern.js";
import type { Rule } from "../../src/rule/rule.js";
import { makeRule } from "../support/rules.js";

const pattern = (written: string): ForbidPattern => {
  const read = readForbidPattern(written);
  if ("problem" in read) throw new Error(read.problem);
  return read.pattern;
};

const forbidding = (name: string, over: Partial<Rule>, forbid: string[], forbidCommands: string[] = []): Rule =>
  makeRule({
    name,
    ...over,
    enforce: { mode: "block", forbid: forbid.map(pattern), forbidCommands: forbidCommands.map(pattern) },
  });

const userGit = forbidding(
  "git",
  { scope: "global", path: "/home/u/.config/opencode/rules/git.md", displayPath: "~/.config/opencode/rules/git.md" },
  [],
  ["git push --force"],
);
const repoGit = makeRule({ name: "git", content: "Use git well." });

const budget = (ms = 5000, sliceMs = 1000): CheckBudget & { pauses: number } => {
  const start = performance.now();
  const clock = {
    pauses: 0,
    now: () => performance.now(),
    deadline: start + ms,
    sliceMs,
    pause: async () => {
      clock.pauses++;
    },
  };
  return clock;
};

function heldSet(rules: readonly Rule[]): Forbidding {
  const resolved = resolvePrecedence(rules);
  return {
    rules: enforcingRules(resolved),
    shadowedBy: new Map(resolved.shadowed.filter((entry) => entry.forbidHolds).map(({ rule, by }) => [rule, by])),
  };
}

describe("shadowing decides the text, never whose forbids hold", () => {
  test("a repository rule named like the user's global forbidding rule wins the text; the user's forbid still holds", () => {
    const { rules, shadowed } = resolvePrecedence([userGit, repoGit]);
    expect(rules).toEqual([repoGit]);
    expect(shadowed).toEqual([{ rule: userGit, by: repoGit, forbidHolds: true }]);
    expect(enforcingRules({ rules, shadowed })).toEqual([repoGit, userGit]);
  });

  test("the user's extraDirs rule (project scope, the user's trust) is held the same way", () => {
    const extra = forbidding(
      "git",
      { source: "extra", trust: "user", path: "/home/u/team-rules/git.md" },
      [],
      ["--force"],
    );
    const repo = makeRule({ name: "git", trust: "repository" });
    // The native source comes before `extra` in project scope: the repository's rule wins the text, the user's forbid holds.
    const resolved = resolvePrecedence([extra, repo]);
    expect(resolved.rules).toEqual([repo]);
    expect(resolved.shadowed).toEqual([{ rule: extra, by: repo, forbidHolds: true }]);
  });

  test("a repository rule saying override: true, or from a nearer project level, still only takes the text", () => {
    const overriding = makeRule({ name: "git", override: true });
    expect(resolvePrecedence([userGit, overriding]).shadowed).toEqual([
      { rule: userGit, by: overriding, forbidHolds: true },
    ]);
    const nearer = makeRule({ name: "git", path: "/project/packages/app/.opencode/rules/git.md" });
    const resolved = resolvePrecedence([userGit, repoGit, nearer], ["/project", "/project/packages/app"]);
    expect(resolved.rules).toEqual([nearer]);
    expect(enforcingRules(resolved)).toContain(userGit);
  });

  test("a rule shadowed by one as trusted as it (the repository's own, or the user's override) is shadowed whole", () => {
    const cursorRule = forbidding("style", { source: "cursor", path: "/project/.cursor/rules/style.mdc" }, [
      "console.log(",
    ]);
    const nativeRule = makeRule({ name: "style" });
    expect(resolvePrecedence([cursorRule, nativeRule]).shadowed).toEqual([{ rule: cursorRule, by: nativeRule }]);
    const repoForbid = forbidding("git", {}, [], ["git push"]);
    const userOverride = makeRule({
      name: "git",
      scope: "global",
      override: true,
      path: "/home/u/.config/opencode/rules/git.md",
    });
    expect(resolvePrecedence([repoForbid, userOverride]).shadowed).toEqual([{ rule: repoForbid, by: userOverride }]);
  });

  test("the force-push is refused by the user's shadowed rule, and the violation names what shadows it", async () => {
    const check = await checkedViolations(
      {
        changes: [{ kind: "command", command: "git push --force" }],
        forbidding: heldSet([userGit, repoGit]),
        as: {},
        option: "block",
      },
      budget(),
    );
    expect(check.violations.map((violation) => [violation.rule.path, violation.shadowedBy?.path])).toEqual([
      [userGit.path, repoGit.path],
    ]);
  });
});

describe("a budget per trust", () => {
  // 50 patterns the DFA gives up on, each within the size limits, against long lines of a/b.
  const hostile = forbidding(
    "heavy",
    {},
    Array.from({ length: 50 }, (_, i) => `/(a|b|c|d)*a(a|b|c|d){${150 + i}}x${i}/`),
  );
  const userConsole = forbidding(
    "no-console",
    { scope: "global", path: "/home/u/.config/opencode/rules/no-console.md" },
    ["console.log("],
  );
  const lines = [
    ...Array.from({ length: 200 }, (_, i) => ({ text: `${"abcd".repeat(1000)}${i}` })),
    { text: 'console.log("x")', line: 201 },
  ];

  test("a repository's hostile patterns cannot keep the user's rule from being checked: the write is refused, and what was not reached is named", async () => {
    // A clock that ticks once per reading: the user's one literal takes about one tick a window (~1,600), the repository's two sets twice that.
    let ticks = 0;
    const clock: CheckBudget = { now: () => ticks++, deadline: 4000, sliceMs: 1_000_000, pause: async () => {} };
    const check = await checkedViolations(
      {
        changes: [{ kind: "file", file: "src/a.ts", added: lines }],
        forbidding: { rules: [hostile, userConsole] },
        as: {},
        option: "block",
      },
      clock,
    );
    expect(check.violations.map((violation) => violation.rule.name)).toEqual(["no-console"]);
    expect(check.complete).toBe(false);
    expect(check.unreached?.map((rule) => rule.name)).toEqual(["heavy"]);
  });

  test("the check pauses between slices, so the event loop runs while it scans", async () => {
    const clock = budget(300, 5);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await checkedViolations(
      {
        changes: [{ kind: "file", file: "src/a.ts", added: lines }],
        forbidding: { rules: [hostile] },
        as: {},
        option: "block",
      },
      {
        ...clock,
        pause: () => new Promise((resolve) => setImmediate(resolve)),
      },
    );
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });
});
