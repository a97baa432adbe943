/**
 * What the Rules panel shows (src/panel/rules-panel.ts, panel-lines.ts) for
 * the plugin's marks in a session's window: the rules in context with their
 * reasons and what they cost, what is set aside for another agent, on
 * request, left out, the warnings, and nothing at all when the plugin put
 * nothing in the session.
 */
import { describe, expect, test } from "vitest";
import { ruleReadMarker, type RulesMarker, type RuleWhy } from "../../src/session/marker.js";
import { COMPACT_BELOW, MAX_LISTED, panelLines } from "../../src/panel/panel-lines.js";
import { wrap } from "../../src/panel/wrap.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";

const always: RuleWhy = { reason: { kind: "always" } };
const file = (path: string, glob: string): RuleWhy => ({
  reason: { kind: "conditions", met: [{ kind: "file", file: path, glob }] },
});
const keyword = (word: string): RuleWhy => ({
  reason: { kind: "conditions", met: [{ kind: "keyword", keyword: word }] },
});
const message = (rules: Record<string, RuleWhy>, extra: Partial<RulesMarker> = {}): RulesMarker => ({
  kind: "rules",
  rules: Object.keys(rules),
  why: Object.values(rules),
  trigger: "chat.message",
  ...extra,
});
const texts = (markers: RulesMarker[], width = 37) => panelLines(rulesPanel(markers), width).map((line) => line.text);

describe("what the panel holds", () => {
  test("nothing from the plugin in the window: no panel at all", () => {
    expect(rulesPanel([])).toBeUndefined();
    expect(panelLines(undefined, 37)).toEqual([]);
  });

  test("rules given over a session, each with its reason, in the order given; on-request rules until read", () => {
    const panel = rulesPanel([
      message({ "style-guide": always }, { offered: ["security", "release"], trigger: "session.created" }),
      message({ typescript: file("src/db/user.ts", "src/**/*.ts") }, { trigger: "read" }),
      message({ "database/migrations": keyword("migration") }, { trigger: "prompt" }),
      ruleReadMarker("security"),
    ]);
    expect(panel?.inContext.map((rule) => rule.name)).toEqual([
      "style-guide",
      "typescript",
      "database/migrations",
      "security",
    ]);
    expect(panel?.inContext.at(-1)?.why).toEqual({ reason: { kind: "rule-tool" } });
    expect(panel?.onRequest).toEqual(["release"]);
  });

  test("a rule given for plan is set aside while the session works as build, and back in context when plan resumes", () => {
    const plan = message({ "plan-notes": { ...always, scope: { agent: "plan" } } });
    const paused = rulesPanel([plan, message({}, { paused: ["plan-notes"] })]);
    expect(paused?.inContext).toEqual([]);
    expect(paused?.setAside.map((rule) => rule.name)).toEqual(["plan-notes"]);
    const resumed = rulesPanel([
      plan,
      message({}, { paused: ["plan-notes"] }),
      message({}, { resumed: ["plan-notes"] }),
    ]);
    expect(resumed?.inContext.map((rule) => rule.name)).toEqual(["plan-notes"]);
    expect(resumed?.setAside).toEqual([]);
  });

  test("left out by the budget: the latest composed message's list holds; a rule given later leaves it; a rule read by name does not reset it", () => {
    const first = message({ a: always }, { leftOut: ["big", "huge"], warnings: 3 });
    expect(rulesPanel([first])).toMatchObject({ leftOut: ["big", "huge"], leftOutCount: 2, warnings: 3 });
    expect(rulesPanel([first, ruleReadMarker("big")])).toMatchObject({
      leftOut: ["huge"],
      leftOutCount: 1,
      warnings: 3,
    });
    expect(rulesPanel([first, message({ big: always }, { leftOut: ["huge"] })])).toMatchObject({
      leftOut: ["huge"],
      warnings: 0,
    });
    expect(rulesPanel([first, message({ big: always, huge: always })])?.leftOut).toEqual([]);
    expect(rulesPanel([message({}, { leftOut: ["r1"], leftOutCount: 900 })])?.leftOutCount).toBe(900);
  });

  test("a deleted rule file's rule leaves the panel", () => {
    const panel = rulesPanel([
      message({ a: always, b: always }, { offered: ["c"] }),
      message({}, { removed: ["b", "c"] }),
    ]);
    expect(panel?.inContext.map((rule) => rule.name)).toEqual(["a"]);
    expect(panel?.onRequest).toEqual([]);
  });

  test("a mark from before the panel (no reasons) still names its rules", () => {
    const old: RulesMarker = { kind: "rules", rules: ["style"], trigger: "session.created" };
    expect(texts([old])).toEqual(["Rules", "In context (1)", "• style"]);
  });
});

describe("the panel as lines", () => {
  const session = [
    message(
      { "style-guide": always, "plan-notes": { ...always, scope: { agent: "plan" } } },
      { offered: ["security"], warnings: 2 },
    ),
    message({ typescript: file("src/app.ts", "src/**/*.ts") }, { trigger: "read", warnings: 2 }),
    message(
      { "database/migrations": keyword("migration"), api: { reason: { kind: "mention", rule: "api" } } },
      { leftOut: ["huge"], warnings: 2 },
    ),
  ];

  test("the sidebar's 37 columns: each rule with its reason below, then on request, left out, warnings and where to see them", () => {
    expect(texts(session)).toEqual([
      "Rules",
      "In context (5)",
      "• style-guide",
      "  always",
      "• plan-notes",
      "  always · agent plan",
      "• typescript",
      "  file src/app.ts matched src/**/*.ts",
      "• database/migrations",
      '  keyword "migration"',
      "• api",
      "  @api in the prompt",
      "On request (1)",
      "  security",
      "Left out by the budget (1)",
      "  huge",
      "⚠ 2 warnings about rule files",
      "  see npx opencode-rulebook check",
    ]);
    expect(panelLines(rulesPanel(session), 37).every((line) => [...line.text].length <= 37)).toBe(true);
  });

  test("set-aside rules say whom they were given for", () => {
    const lines = texts([
      message({ "plan-notes": { ...always, scope: { agent: "plan" } } }),
      message({}, { paused: ["plan-notes"] }),
    ]);
    expect(lines).toEqual(["Rules", "Set aside for now (1)", "• plan-notes", "  given for agent plan"]);
    expect(texts([message({}, { offered: ["security"] })]).slice(0, 2)).toEqual(["Rules", "No rule in context yet"]);
  });

  test("narrow: one line per rule, its name and the kind of reason, cut to the width; the rest counted", () => {
    const lines = texts(session, 22);
    expect(lines).toEqual([
      "Rules · 5",
      "style-guide · always",
      "plan-notes · always ·…",
      "typescript · file",
      "database/migrations ·…",
      "api · @mention",
      "1 on request · 1 left…",
      "⚠ 2 warnings",
    ]);
    expect(lines.every((line) => [...line].length <= 22)).toBe(true);
    expect(texts(session, COMPACT_BELOW)[1]).toBe("In context (5)");
  });

  test("a long path wraps at words and breaks only what cannot fit, continued under the reason", () => {
    const lines = texts([
      message({ db: file("packages/server/src/database/models/user-account.ts", "packages/*/src/database/**") }),
    ]);
    expect(lines.slice(2)).toEqual([
      "• db",
      "  file packages/server/src/database/m",
      "  odels/user-account.ts matched",
      "  packages/*/src/database/**",
    ]);
    expect(wrap("  a b c", 4, 2)).toEqual(["  a", "  b", "  c"]);
    // The indent takes at most half a line, so even a narrow column makes progress.
    expect(wrap("abcdef", 2, 5)).toEqual(["ab", " c", " d", " e", " f"]);
    expect(wrap("", 10)).toEqual([""]);
  });

  test("thousands of rules: the panel shows the first ones of each list and counts the rest", () => {
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`rule-${i}`, always]));
    const offered = Array.from({ length: 400 }, (_, i) => `extra-${i}`);
    const lines = texts([message(many, { offered })]);
    expect(lines).toContain("In context (1000)");
    expect(lines).toContain(`  + ${1000 - MAX_LISTED} more`);
    expect(lines.filter((line) => line.startsWith("• "))).toHaveLength(MAX_LISTED);
    expect(lines.join(" ")).toContain(`+ ${400 - MAX_LISTED} more`);
    expect(lines.length).toBeLessThan(2 * MAX_LISTED + 20);
  });

  test("names from a repository are shown, never obeyed: control characters (terminal escapes) are replaced", () => {
    const lines = texts([message({ "evil\u001b[2Jname": keyword("x\u0007") })]);
    expect(lines).toContain("• evil?[2Jname");
    expect(lines).toContain('  keyword "x?"');
  });
});

describe("rules that forbid, held and weakened", () => {
  test("a shadowed user rule whose forbid still holds is listed while the latest composed message says so", () => {
    const held = [message({ git: always }, { held: ["git"] })];
    expect(rulesPanel(held)?.held).toEqual(["git"]);
    expect(texts(held).slice(4)).toEqual(["Shadowed, still enforced (1)", "  git"]);
    expect(texts(held, 22).at(-1)).toBe("1 held");
    expect(rulesPanel([...held, message({ other: always })])?.held).toEqual([]);
  });

  test("a rule the agent weakened stays marked for the window, each once, as a warning", () => {
    const weakenedNote: RulesMarker = { kind: "rules", rules: [], trigger: "warned", weakened: ["no-force-push"] };
    const markers = [message({ style: always }), weakenedNote, message({ other: always }), weakenedNote];
    expect(rulesPanel(markers)?.weakened).toEqual(["no-force-push"]);
    const lines = panelLines(rulesPanel(markers), 37);
    expect(lines.filter((line) => line.tone === "warning").map((line) => line.text)).toEqual([
      "⚠ weakened by the agent:",
      "  no-force-push",
    ]);
    expect(texts(markers, 22).at(-1)).toBe("⚠ weakened: no-force-…");
  });
});

describe("what the rules in context cost", () => {
  const costed = (rules: Record<string, RuleWhy>, tokens: number[], extra: Partial<RulesMarker> = {}) =>
    message(rules, { tokens, ...extra });
  const session = [
    costed({ "style-guide": always }, [120], { offered: ["security"] }),
    costed({ typescript: file("src/app.ts", "src/**/*.ts") }, [88]),
    costed({ "database/migrations": keyword("migration") }, [202]),
  ];

  test("each rule's figure after its name, the total in the heading; the compact title gives the total", () => {
    expect(rulesPanel(session)?.tokens).toBe(410);
    expect(rulesPanel(session)?.inContext.map((rule) => rule.tokens)).toEqual([120, 88, 202]);
    expect(texts(session)).toEqual([
      "Rules",
      "In context (3 · ≈ 410 tokens)",
      "• style-guide · ≈ 120 tokens",
      "  always",
      "• typescript · ≈ 88 tokens",
      "  file src/app.ts matched src/**/*.ts",
      "• database/migrations · ≈ 202 tokens",
      '  keyword "migration"',
      "On request (1)",
      "  security",
    ]);
    expect(texts(session, 24)).toEqual([
      "Rules · 3 · ≈410",
      "style-guide · always",
      "typescript · file",
      "database/migrations · k…",
      "1 on request",
    ]);
  });

  test("a name too long for the figure beside it: the figure on the line below, within the width", () => {
    const lines = texts([costed({ "packages/server/database-migrations": always }, [1])]);
    expect(lines.slice(1)).toEqual([
      "In context (1 · ≈ 1 token)",
      "• packages/server/database-migrations",
      "  ≈ 1 token",
      "  always",
    ]);
    const long = [costed({ "a-rule-name-far-too-long-for-one-line-of-the-sidebar": always }, [7])];
    // A name broken where the line ends: the figure follows its last part.
    expect(texts(long).slice(2)).toEqual([
      "• a-rule-name-far-too-long-for-one-li",
      "  ne-of-the-sidebar · ≈ 7 tokens",
      "  always",
    ]);
  });

  test("a rule given again costs what its latest mark says; a rule removed or set aside leaves the total", () => {
    const again = [...session, costed({ typescript: file("src/b.ts", "src/**/*.ts") }, [30])];
    expect(rulesPanel(again)?.tokens).toBe(352);
    expect(texts(again)).toContain("• typescript · ≈ 30 tokens");
    expect(rulesPanel([...session, message({}, { removed: ["style-guide"] })])?.tokens).toBe(290);
    const aside = rulesPanel([...session, message({}, { paused: ["database/migrations"] })]);
    expect(aside?.tokens).toBe(208);
    // Set aside, a rule still shows what it costs: it is still in the window.
    expect(panelLines(aside, 37).map((line) => line.text)).toEqual(
      expect.arrayContaining(["In context (2 · ≈ 208 tokens)", "• database/migrations · ≈ 202 tokens"]),
    );
  });

  test("a rule whose mark gives no figure shows none, and the total says how many it covers; none known, no total", () => {
    const read = [...session, ruleReadMarker("security")];
    expect(rulesPanel(read)?.tokens).toBe(410);
    const lines = texts(read);
    expect(lines[1]).toBe("In context (4 · ≈ 410 tokens for 3)");
    expect(lines.slice(-2)).toEqual(["• security", "  read on request"]);
    expect(texts(read, 24)[0]).toBe("Rules · 4 · ≈410+");
    // A mark of an earlier version (no figures): no figure and no total, rather than a false one.
    const old = [message({ a: always, b: always })];
    expect(rulesPanel(old)?.tokens).toBe(0);
    expect(texts(old).slice(0, 3)).toEqual(["Rules", "In context (2)", "• a"]);
    expect(texts(old, 24)[0]).toBe("Rules · 2");
    // Given again by the rule tool with its figure (ruleReadMarker's second argument), it has one.
    expect(texts([...session, ruleReadMarker("security", 15)])[1]).toBe("In context (4 · ≈ 425 tokens)");
  });
});
