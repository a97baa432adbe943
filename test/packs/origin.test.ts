/**
 * Where a rule comes from, as people are told it: its tier and its pack
 * (src/rule/origin.ts), carried in the session's marker (src/session/marker.ts)
 * to the Rules panel (src/panel/panel-lines.ts); and how a managed rule's name
 * stays its own (src/formats/load.ts `resolvePrecedence`, `inMessageOrder`).
 */
import { describe, expect, test } from "vitest";
import { inMessageOrder, resolvePrecedence } from "../../src/formats/load.js";
import { panelLines, whyText } from "../../src/panel/panel-lines.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";
import { originText, tierOf } from "../../src/rule/origin.js";
import type { Rule } from "../../src/rule/rule.js";
import { asMarker, type RulesMarker, type RuleWhy } from "../../src/session/marker.js";
import { makeRule } from "../support/rules.js";

const managed = (name: string, over: Partial<Rule> = {}) =>
  makeRule({
    name,
    trust: "managed",
    scope: "global",
    source: "managed",
    path: `/etc/opencode/rules/${name}.md`,
    displayPath: `/etc/opencode/rules/${name}.md`,
    ...over,
  });
const user = (name: string, over: Partial<Rule> = {}) =>
  makeRule({
    name,
    scope: "global",
    path: `/home/u/.config/opencode/rules/${name}.md`,
    displayPath: `~/.config/opencode/rules/${name}.md`,
    ...over,
  });
const project = (name: string, over: Partial<Rule> = {}) => makeRule({ name, ...over });

const NPM_PACK = { spec: "@acme/rules", label: "@acme/rules@2.1.0", version: "2.1.0" };
const GIT_PACK = {
  spec: "github:acme/policy#v3",
  label: "github:acme/policy@3f2c1ab",
  commit: "3f2c1ab".padEnd(40, "0"),
};

describe("a rule's tier and origin", () => {
  test("a project rule is the project's, a global rule the user's, a managed rule the organisation's", () => {
    expect(tierOf(project("a"))).toBe("project");
    expect(tierOf(user("a"))).toBe("user");
    expect(tierOf(managed("a"))).toBe("managed");
  });

  test("the trust discovery found wins over the scope: the user's extraDirs rule in the project is the user's; a managed pack's rule is managed", () => {
    expect(tierOf(project("a", { source: "extra", trust: "user" }))).toBe("user");
    expect(tierOf(user("a", { trust: "managed", pack: GIT_PACK }))).toBe("managed");
    expect(tierOf(project("a", { trust: "repository", pack: NPM_PACK }))).toBe("project");
  });

  test("an ordinary folder's rule has no origin to tell; a managed rule says so; a pack's rule names its pack and version", () => {
    expect(originText(project("a"))).toBeUndefined();
    expect(originText(user("a"))).toBeUndefined();
    expect(originText(managed("a"))).toBe("managed");
    expect(originText(project("a", { pack: NPM_PACK }))).toBe("pack @acme/rules@2.1.0");
    expect(originText(user("a", { trust: "user", pack: NPM_PACK }))).toBe("pack @acme/rules@2.1.0");
    expect(originText(managed("a", { pack: GIT_PACK }))).toBe("managed pack github:acme/policy@3f2c1ab");
  });
});

describe("the origin kept in a session's marker", () => {
  const marker = (why: unknown[]): unknown => ({
    kind: "rules",
    rules: why.map((_, at) => `r${at}`),
    trigger: "first-message",
    why,
  });

  test("a reason's `from` survives being read back", () => {
    const stored = marker([
      { reason: { kind: "always" }, from: "managed" },
      {
        reason: { kind: "conditions", met: [{ kind: "file", file: "src/api/users.ts", glob: "src/api/**" }] },
        from: "pack @acme/rules@2.1.0",
      },
      { reason: { kind: "always" } },
    ]);
    expect(asMarker(stored)?.why?.map((why) => why.from)).toEqual(["managed", "pack @acme/rules@2.1.0", undefined]);
  });

  test("a `from` that is not text is dropped like any bad field: the reasons go, the rest of the marker stays", () => {
    for (const from of [5, null, ["managed"], { label: "x" }]) {
      const read = asMarker({
        ...(marker([{ reason: { kind: "always" } }, { reason: { kind: "always" }, from }]) as object),
        offered: ["o"],
      });
      expect(read).toEqual({ kind: "rules", rules: ["r0", "r1"], trigger: "first-message", offered: ["o"] });
    }
  });
});

describe("the origin in the Rules panel", () => {
  const always: RuleWhy = { reason: { kind: "always" } };
  const api: RuleWhy = {
    reason: { kind: "conditions", met: [{ kind: "file", file: "src/api/users.ts", glob: "src/api/**" }] },
  };
  const message = (rules: Record<string, RuleWhy>): RulesMarker => ({
    kind: "rules",
    rules: Object.keys(rules),
    why: Object.values(rules),
    trigger: "first-message",
  });

  test("a reason names the managed tier or the pack after it; an ordinary rule's names nothing more", () => {
    expect(whyText({ ...always, from: "managed" })).toBe("always · managed");
    expect(whyText({ ...api, from: "pack @acme/rules@2.1.0" })).toBe(
      "file src/api/users.ts matched src/api/** · pack @acme/rules@2.1.0",
    );
    expect(whyText({ ...always, scope: { agent: "plan" }, from: "managed pack github:acme/policy@3f2c1ab" })).toBe(
      "always · agent plan · managed pack github:acme/policy@3f2c1ab",
    );
    expect(whyText(always)).toBe("always");
  });

  test("an origin read from storage is shown, never obeyed: control characters become ?", () => {
    expect(whyText({ ...always, from: "pack \u001b[2Jevil" })).toBe("always · pack ?[2Jevil");
  });

  test("the full layout shows the pack's label under the rule", () => {
    const lines = panelLines(
      rulesPanel([
        message({ secrets: { ...always, from: "managed" }, api: { ...api, from: "pack @acme/rules@2.1.0" } }),
      ]),
      80,
    ).map((line) => line.text);
    expect(lines).toEqual([
      "Rules",
      "In context (2)",
      "• secrets",
      "  always · managed",
      "• api",
      "  file src/api/users.ts matched src/api/** · pack @acme/rules@2.1.0",
    ]);
  });

  test("the compact layout names the managed tier, but no pack label: it would not fit", () => {
    const panel = rulesPanel([
      message({
        k: { ...always, from: "managed" },
        p: { ...always, from: "managed pack github:acme/policy@3f2c1ab" },
        api: { ...api, from: "pack @acme/rules@2.1.0" },
        own: always,
      }),
    ]);
    const lines = panelLines(panel, 20).map((line) => line.text);
    expect(lines).toEqual(["Rules · 4", "k · always · managed", "p · always · managed", "api · file", "own · always"]);
    expect(lines.join("\n")).not.toContain("@acme");
  });
});

describe("a managed rule's name is its own", () => {
  test("a user's global rule of its name is kept beside it, renamed name~user", () => {
    const above = managed("secrets");
    const mine = user("secrets", { content: "My secrets notes." });
    const resolved = resolvePrecedence([mine, above]);
    expect(resolved.rules.map((rule) => [rule.name, rule.path]).sort()).toEqual([
      ["secrets", above.path],
      ["secrets~user", mine.path],
    ]);
    expect(resolved.shadowed).toEqual([]);
    expect(resolved.beside).toEqual([{ rule: { ...mine, name: "secrets~user" }, managed: above }]);
  });

  test("a project rule of its name is kept beside it, renamed name~project", () => {
    const above = managed("secrets");
    const local = project("secrets", { content: "Local secrets." });
    const resolved = resolvePrecedence([above, local]);
    expect(resolved.rules.map((rule) => [rule.name, rule.content]).sort()).toEqual([
      ["secrets", above.content],
      ["secrets~project", "Local secrets."],
    ]);
    expect(resolved.beside.map(({ rule, managed: by }) => [rule.name, by.path])).toEqual([
      ["secrets~project", above.path],
    ]);
  });

  test("a project rule already named x~project: the renamed one becomes x~project2, and neither is lost", () => {
    const resolved = resolvePrecedence([
      managed("x"),
      project("x", { content: "renamed" }),
      project("x~project", { content: "own name" }),
    ]);
    const byName = Object.fromEntries(resolved.rules.map((rule) => [rule.name, rule.content]));
    expect(byName).toEqual({ x: "Content of x.", "x~project2": "renamed", "x~project": "own name" });
    expect(resolved.shadowed).toEqual([]);
  });

  test("a project rule and a user rule of its name: the project's takes the text beside the managed one, the user's is shadowed by it", () => {
    const resolved = resolvePrecedence([managed("git"), user("git"), project("git")]);
    expect(resolved.rules.map((rule) => [rule.name, tierOf(rule)]).sort()).toEqual([
      ["git", "managed"],
      ["git~project", "project"],
    ]);
    expect(resolved.shadowed.map(({ rule, by }) => [tierOf(rule), by.name])).toEqual([["user", "git~project"]]);
  });

  test("in a message, managed rules come first, whatever their priority; then the user's, then the project's", () => {
    const ordered = inMessageOrder([
      project("p", { priority: 100 }),
      user("u", { priority: 90 }),
      managed("m", { priority: 1 }),
    ]);
    expect(ordered.map((rule) => rule.name)).toEqual(["m", "u", "p"]);
    const twoManaged = inMessageOrder([
      managed("b", { priority: 10 }),
      project("a", { priority: 100 }),
      managed("c", { priority: 90 }),
    ]);
    expect(twoManaged.map((rule) => rule.name)).toEqual(["c", "b", "a"]);
  });
});
