/**
 * Google Antigravity and Gemini CLI (formats/antigravity.ts, gemini.ts):
 * where each finds its rules, Antigravity's triggers, `@path` references as
 * each resolves them within the trust boundary, and `~/.gemini/GEMINI.md`
 * read once. Fixtures from antigravity.google/docs/rules-workflows and
 * geminicli.com/docs (gemini-md, memport).
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { Rule } from "../../src/rule/rule.js";
import type { RuleWarning } from "../../src/rule/warnings.js";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));

const row = (rule: Rule) => [rule.scope, rule.name, rule.toolType, activationOf(rule), globsOf(rule)];
const warned = (warnings: RuleWarning[]) => warnings.map((w) => [w.code, w.path, "line" in w ? w.line : undefined]);

describe("Google Antigravity", () => {
  test(".agents/rules and .agent/rules, sub-folders too; trigger as Windsurf's; a missing trigger is manual, with a warning", async () => {
    await box.write(join(box.project, ".agents", "rules"), {
      "always.md": "---\ntrigger: always_on\n---\nA",
      "ts.md": '---\ntrigger: glob\nglobs: "src/**/*.ts"\n---\nT',
      "db.md": "---\ntrigger: model_decision\ndescription: Database migrations\n---\nD",
      "manual.md": "---\ntrigger: manual\n---\nM",
      "deep/bare.md": "No front matter.",
    });
    await box.write(join(box.project, ".agent", "rules"), {
      "legacy.md": "---\ntrigger: always_on\n---\nL",
      "always.md": "---\ntrigger: manual\n---\nshadowed",
    });
    const { rules, warnings, shadowed } = await loadSource(box, "antigravity");
    expect(rules.map(row)).toEqual([
      ["project", "always", "always_on", "always", []],
      ["project", "db", "model_decision", "on-request", []],
      ["project", "deep/bare", "no trigger", "manual", []],
      ["project", "legacy", "always_on", "always", []],
      ["project", "manual", "manual", "manual", []],
      ["project", "ts", "glob", "conditional", ["src/**/*.ts"]],
    ]);
    expect(shadowed.map((s) => s.rule.displayPath)).toEqual([".agent/rules/always.md"]);
    expect(warned(warnings)).toEqual([
      ["activation-missing", join(box.project, ".agents/rules/deep/bare.md"), undefined],
    ]);
  });

  test("another tool's scoping key is ignored with a warning naming its line", async () => {
    await box.write(join(box.project, ".agents", "rules"), {
      "p.md": '---\ntrigger: always_on\npaths: "src/**"\n---\nP',
    });
    const { rules, warnings } = await loadSource(box, "antigravity");
    expect(rules.map(row)).toEqual([["project", "p", "always_on", "always", []]]);
    expect(warned(warnings)).toEqual([["key-ignored-by-tool", join(box.project, ".agents/rules/p.md"), 3]]);
  });

  test("~/.gemini/GEMINI.md is the global rule, always", async () => {
    await box.write(join(box.home, ".gemini"), { "GEMINI.md": "Answer in English." });
    const { rules } = await loadSource(box, "antigravity");
    expect(rules.map(row)).toEqual([["global", "gemini-global", "always", "always", []]]);
  });

  test("a deeper level's rules are read and scoped to its folder", async () => {
    const pkg = join(box.project, "packages", "app");
    await box.write(box.project, { "packages/app/.agents/rules/app.md": "---\ntrigger: always_on\n---\nApp." });
    const { rules } = await loadSource(box, "antigravity", { directory: pkg });
    expect(rules.map(row)).toEqual([["project", "packages/app/app", "always_on", "conditional", ["packages/app/**"]]]);
  });

  test("@ references: relative to the rule file; an absolute path as absolute, then from the repository root", async () => {
    await box.write(box.project, {
      ".agents/rules/r.md":
        "---\ntrigger: always_on\n---\nSee @../near.md and @/docs/style.md here.\n`@../near.md` stays code.",
      ".agents/near.md": "NEAR",
      "docs/style.md": "STYLE",
    });
    const { rules, warnings } = await loadSource(box, "antigravity");
    const rule = rules.find((r) => r.name === "r");
    expect(rule?.content).toBe("See NEAR and STYLE here.\n`@../near.md` stays code.");
    expect(warnings).toEqual([]);
  });

  test("@ references out of the repository are refused with a warning: by path, by symlink; an absolute path outside is not read, only looked up from the root", async () => {
    const outside = join(box.root, "outside");
    await box.write(outside, { "secret.md": "SECRET" });
    await box.link(join(outside, "secret.md"), join(box.project, "docs", "linked.md"));
    await box.write(box.project, {
      ".agents/rules/r.md": `---\ntrigger: always_on\n---\n@../../../outside/secret.md\n@/docs/linked.md\n@${join(outside, "secret.md")}`,
    });
    const { rules, warnings } = await loadSource(box, "antigravity");
    expect(rules[0]?.content).not.toContain("SECRET");
    expect(warnings.map((w) => w.code)).toEqual(["reference-outside", "reference-leads-outside", "reference-missing"]);
  });
});

describe("Gemini CLI", () => {
  test("~/.gemini/GEMINI.md and GEMINI.md at every level from the root down to the directory: always", async () => {
    const pkg = join(box.project, "packages", "app");
    await box.write(join(box.home, ".gemini"), { "GEMINI.md": "Global." });
    await box.write(box.project, {
      "GEMINI.md": "Root.",
      "packages/app/GEMINI.md": "App.",
      "packages/app/src/x.ts": "",
    });
    const { rules } = await loadSource(box, "gemini", { directory: pkg });
    expect(rules.map(row)).toEqual([
      ["global", "gemini-global", "always", "always", []],
      ["project", "GEMINI", "always", "always", []],
      ["project", "packages/app/GEMINI", "always", "always", []],
    ]);
  });

  test("imports: anywhere after a blank, relative or absolute, nested; code and mentions stay text", async () => {
    await box.write(box.project, {
      "GEMINI.md": "Intro @./parts/a.md end\n@CLAUDE.md\nmail me@x.md, ask @alice\n```\n@./parts/a.md\n```",
      "parts/a.md": "A then @./b.md",
      "parts/b.md": "B",
      "CLAUDE.md": "C",
    });
    const { rules, warnings } = await loadSource(box, "gemini");
    expect(rules[0]?.content).toBe("Intro A then B end\nC\nmail me@x.md, ask @alice\n```\n@./parts/a.md\n```");
    expect(warnings).toEqual([]);
  });

  test("imports: a cycle, depth past 5, and one out of the repository are left as text with a warning", async () => {
    const outside = join(box.root, "outside");
    await box.write(outside, { "secret.md": "SECRET" });
    await box.link(outside, join(box.project, "linked"));
    await box.write(box.project, {
      "GEMINI.md": "@./a.md\n@./d1.md\n@./linked/secret.md\n@/etc/hostname",
      "a.md": "@./b.md",
      "b.md": "@./a.md",
      "d1.md": "@./d2.md",
      "d2.md": "@./d3.md",
      "d3.md": "@./d4.md",
      "d4.md": "@./d5.md",
      "d5.md": "@./d6.md",
      "d6.md": "SIX",
    });
    const { rules, warnings } = await loadSource(box, "gemini");
    expect(rules[0]?.content).not.toContain("SECRET");
    expect(rules[0]?.content).not.toContain("SIX");
    expect(warnings.map((w) => w.code).sort()).toEqual([
      "reference-cycle",
      "reference-leads-outside",
      "reference-outside",
      "reference-too-deep",
    ]);
  });

  test("~/.gemini/GEMINI.md is read once when both sources are enabled: by antigravity, first in precedence", async () => {
    await box.write(join(box.home, ".gemini"), { "GEMINI.md": "Global." });
    const both = await box.load({ sources: ["antigravity", "gemini"] });
    expect(both.files.map((file) => [file.source, file.name])).toEqual([["antigravity", "gemini-global"]]);
    expect(both.rules.map((rule) => [rule.source, rule.name])).toEqual([["antigravity", "gemini-global"]]);
    expect(both.shadowed).toEqual([]);
    const geminiOnly = await box.load({ sources: ["gemini"] });
    expect(geminiOnly.rules.map((rule) => [rule.source, rule.name])).toEqual([["gemini", "gemini-global"]]);
  });
});
