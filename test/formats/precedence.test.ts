/**
 * One precedence over every source, the `sources` and `extraDirs` options,
 * and `override: true`.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { makeRule } from "../support/rules.js";
import { resolveExtraDirs } from "../../src/formats/extra.js";
import { resolvePrecedence } from "../../src/formats/load.js";
import { ALL_SOURCES } from "../../src/formats/sources.js";
import { type Box, makeBox } from "../support/formats.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
afterEach(() => box.cleanup());

describe("options.sources: each source can be switched off", () => {
  beforeEach(async () => {
    box = await makeBox(true);
  });

  const FORMATS = ["native", "cursor", "claude", "windsurf", "cline", "copilot", "kiro"];

  test.each(FORMATS)("without %s: none of its rules, the others still load", async (off) => {
    const all = await box.load();
    const loaded = await box.load({ sources: ALL_SOURCES.map((source) => source.id).filter((id) => id !== off) });
    expect(loaded.rules.filter((rule) => rule.source === off)).toEqual([]);
    expect(loaded.files.filter((file) => file.source === off)).toEqual([]);
    const others = all.rules.filter((rule) => rule.source !== off).map((rule) => `${rule.source}:${rule.name}`);
    // Rules this source used to shadow come back; everything else is unchanged.
    expect(loaded.rules.map((rule) => `${rule.source}:${rule.name}`)).toEqual(expect.arrayContaining(others));
    expect(new Set(loaded.rules.map((rule) => rule.source))).toEqual(new Set(FORMATS.filter((id) => id !== off)));
  });

  test("without native, the project's Cursor style rule wins and shadows the global Claude Code one", async () => {
    const loaded = await box.load({ sources: ["cursor", "claude"] });
    expect(loaded.rules.find((rule) => rule.name === "style")).toMatchObject({ source: "cursor", scope: "project" });
    expect(loaded.shadowed.map(({ rule, by }) => [rule.source, by.source])).toEqual([["claude", "cursor"]]);
  });

  test("an empty list reads nothing", async () => {
    const loaded = await box.load({ sources: [] });
    expect(loaded).toMatchObject({ rules: [], files: [], warnings: [], shadowed: [] });
  });
});

describe("options.extraDirs", () => {
  beforeEach(async () => {
    box = await makeBox();
  });

  test("folders relative to the project root, absolute and ~/ are read like .opencode/rules, in project scope, source extra", async () => {
    await box.write(box.project, {
      ".agents/rules/agents.md": "---\nglobs: src/**\n---\nA",
      ".agents/rules/sub/deep.mdc": "D",
    });
    await box.write(box.root, { "shared/team.md": "T" });
    await box.write(box.home, { "my-rules/mine.md": "M" });
    // Folders outside the repository are read because the user's own config names them (see test/discover/trust.test.ts).
    const loaded = await box.load(
      { extraDirs: [".agents/rules", join(box.root, "shared"), "~/my-rules", "missing/folder"] },
      { userExtraDirs: [join(box.root, "shared"), "~/my-rules"] },
    );
    expect(loaded.warnings).toEqual([]);
    expect(loaded.rules.map((rule) => [rule.scope, rule.source, rule.name, globsOf(rule), rule.displayPath])).toEqual([
      ["project", "extra", "agents", ["src/**"], ".agents/rules/agents.md"],
      ["project", "extra", "mine", [], "~/my-rules/mine.md"],
      ["project", "extra", "sub/deep", [], ".agents/rules/sub/deep.mdc"],
      ["project", "extra", "team", [], join(box.root, "shared/team.md")],
    ]);
    expect(loaded.folders).toEqual(
      expect.arrayContaining([join(box.project, ".agents/rules"), join(box.home, "my-rules")]),
    );
  });

  test("relative folders are relative to the project root, also when working in a sub-folder", async () => {
    await box.write(box.project, { ".agents/rules/a.md": "A", "pkg/x.ts": "" });
    const loaded = await box.load({ extraDirs: [".agents/rules"] }, { directory: join(box.project, "pkg") });
    expect(loaded.rules.map((rule) => rule.name)).toEqual(["a"]);
  });

  test("the extraDirs can also come in the context; the option wins", async () => {
    await box.write(box.project, { "one/a.md": "A", "two/b.md": "B" });
    expect((await box.load({}, { extraDirs: ["one"] })).rules.map((rule) => rule.name)).toEqual(["a"]);
    expect((await box.load({ extraDirs: ["two"] }, { extraDirs: ["one"] })).rules.map((rule) => rule.name)).toEqual([
      "b",
    ]);
  });

  test("native beats extra, extra beats Cursor; `sources` without extra ignores extraDirs", async () => {
    await box.write(box.project, {
      ".opencode/rules/style.md": "N",
      ".agents/rules/style.md": "E",
      ".agents/rules/only.md": "O",
      ".cursor/rules/only.mdc": "C",
    });
    const loaded = await box.load({ extraDirs: [".agents/rules"] });
    expect(loaded.rules.map((rule) => [rule.name, rule.source])).toEqual([
      ["only", "extra"],
      ["style", "native"],
    ]);
    expect(loaded.shadowed.map(({ rule, by }) => [rule.name, rule.source, by.source])).toEqual([
      ["style", "extra", "native"],
      ["only", "cursor", "extra"],
    ]);
    const withoutExtra = await box.load({ extraDirs: [".agents/rules"], sources: ["native", "cursor"] });
    expect(withoutExtra.rules.map((rule) => [rule.name, rule.source])).toEqual([
      ["only", "cursor"],
      ["style", "native"],
    ]);
  });

  test("resolveExtraDirs", () => {
    const context = { home: "/home/me", directory: "/repo/pkg", worktree: "/repo" };
    expect(resolveExtraDirs([".agents/rules", "/abs/rules", "~/r", "~", "../up", ".agents/rules"], context)).toEqual([
      "/repo/.agents/rules",
      "/abs/rules",
      "/home/me/r",
      "/home/me",
      "/up",
    ]);
  });
});

describe("precedence", () => {
  beforeEach(async () => {
    box = await makeBox();
  });

  test("project over global, whatever the source: a global native rule loses to a project Kiro rule", async () => {
    await box.write(join(box.home, ".config/opencode/rules"), { "deploy.md": "Global native." });
    await box.write(join(box.project, ".kiro/steering"), { "deploy.md": "Project Kiro." });
    const loaded = await box.load();
    expect(loaded.rules.map((rule) => [rule.scope, rule.source, rule.content])).toEqual([
      ["project", "kiro", "Project Kiro."],
    ]);
    expect(loaded.shadowed.map(({ rule, by }) => [rule.scope, rule.source, by.scope, by.source])).toEqual([
      ["global", "native", "project", "kiro"],
    ]);
  });

  test("within a scope: native > cursor > claude > windsurf > cline > copilot > kiro", async () => {
    await box.write(box.project, {
      ".kiro/steering/x.md": "kiro",
      ".github/instructions/x.instructions.md": '---\napplyTo: "**"\n---\ncopilot',
      ".clinerules/x.md": "cline",
      ".windsurf/rules/x.md": "windsurf",
      ".claude/rules/x.md": "claude",
      ".cursor/rules/x.mdc": "cursor",
      ".opencode/rules/x.md": "native",
    });
    const order = ["native", "cursor", "claude", "windsurf", "cline", "copilot", "kiro"];
    for (let i = 0; i < order.length; i++) {
      const loaded = await box.load({ sources: order.slice(i) });
      expect(loaded.rules.map((rule) => rule.content)).toEqual([order[i]]);
      expect(loaded.shadowed.map(({ rule, by }) => [rule.source, by.source])).toEqual(
        order.slice(i + 1).map((source) => [source, order[i]]),
      );
    }
  });

  test("within a source, the nearer project level wins (a package's rule over the repository root's)", async () => {
    const pkg = join(box.project, "packages", "app");
    await box.write(box.project, {
      ".opencode/rules/style.md": "Root.",
      "packages/app/.opencode/rules/style.md": "Package.",
    });
    const loaded = await box.load({}, { directory: pkg });
    expect(loaded.rules.map((rule) => [rule.name, rule.content])).toEqual([["style", "Package."]]);
    expect(loaded.shadowed.map(({ rule }) => rule.content)).toEqual(["Root."]);
  });

  test("override: true makes a later rule replace the winner, which is reported as shadowed by it", async () => {
    await box.write(box.project, {
      ".opencode/rules/style.md": "Native.",
      ".cursor/rules/style.mdc": "Cursor.",
      ".kiro/steering/style.md": "---\noverride: true\n---\nKiro overrides.",
    });
    await box.write(join(box.home, ".claude/rules"), {
      "style.md": "---\noverride: true\n---\nGlobal Claude overrides too.",
    });
    const loaded = await box.load();
    // The first overriding rule in precedence order wins (the project's over the global one).
    expect(loaded.rules.map((rule) => [rule.scope, rule.source, rule.content])).toEqual([
      ["project", "kiro", "Kiro overrides."],
    ]);
    expect(loaded.shadowed.map(({ rule, by }) => [rule.scope, rule.source, by.source])).toEqual([
      ["project", "native", "kiro"],
      ["project", "cursor", "kiro"],
      ["global", "claude", "kiro"],
    ]);
  });

  test("override: true on a global rule beats a project rule", async () => {
    await box.write(join(box.home, ".config/opencode/rules"), {
      "security.md": "---\noverride: true\n---\nCompany policy.",
    });
    await box.write(join(box.project, ".opencode/rules"), { "security.md": "Project notes." });
    const loaded = await box.load();
    expect(loaded.rules.map((rule) => [rule.scope, rule.content])).toEqual([["global", "Company policy."]]);
    expect(loaded.shadowed.map(({ rule, by }) => [rule.scope, by.scope])).toEqual([["project", "global"]]);
  });

  test("message order stays scope, priority, name, whatever the source", async () => {
    await box.write(box.project, {
      ".kiro/steering/a.md": "---\npriority: 10\n---\nA",
      ".cursor/rules/b.mdc": "---\npriority: 90\n---\nB",
      ".claude/rules/c.md": "C",
      ".windsurf/rules/d.md": "---\npriority: 90\n---\nD",
    });
    await box.write(join(box.home, ".kiro/steering"), { "z.md": "Z" });
    const loaded = await box.load();
    expect(loaded.rules.map((rule) => rule.name)).toEqual(["z", "b", "d", "c", "a"]);
  });

  test("a home folder that is also the project: each file is read once, in project scope", async () => {
    await box.write(box.home, { ".cursor/rules/both.mdc": "Both.", ".kiro/steering/k.md": "K" });
    const loaded = await box.load({}, { directory: box.home, worktree: box.home });
    expect(loaded.files.map((file) => [file.scope, file.name])).toEqual([
      ["project", "both"],
      ["project", "k"],
    ]);
    expect(loaded.shadowed).toEqual([]);
  });

  test("resolvePrecedence keeps unknown sources last and is stable", () => {
    const a = makeRule({ name: "x", source: "custom", path: "/p/a.md" });
    const b = makeRule({ name: "x", source: "kiro", path: "/p/b.md" });
    const c = makeRule({ name: "y", source: "custom", path: "/p/c.md" });
    const { rules, shadowed } = resolvePrecedence([a, b, c]);
    expect(rules).toEqual([b, c]);
    expect(shadowed).toEqual([{ rule: a, by: b }]);
  });

  test("no rule folders anywhere: nothing found and no warnings", async () => {
    await mkdir(join(box.project, "src"));
    expect(await box.load()).toMatchObject({ rules: [], shadowed: [], warnings: [], files: [], references: [] });
  });
});
