/**
 * The all-formats fixture (test/fixtures/all-formats): a project with rules in
 * all seven formats and a home with user-level rules, loaded as the engine
 * loads it. Names, sources, scopes, activations, shadowing, warnings, order.
 */
import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Rule } from "../../src/rule/rule.js";
import { activationOf } from "../../src/select/rule-set.js";
import { whyRuleApplies } from "../../src/select/active.js";
import { ALL_SOURCES } from "../../src/formats/sources.js";
import { type Box, makeBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
beforeEach(async () => {
  box = await makeBox(true);
});
afterEach(() => box.cleanup());

const row = (rule: Rule) => [
  rule.scope,
  rule.source,
  rule.name,
  activationOf(rule),
  globsOf(rule),
  rule.description ?? null,
  rule.displayPath,
];

/** In message order: global first, then priority (high first), then name. */
const EXPECTED = [
  ["global", "native", "global-native", "always", [], null, "~/.config/opencode/rules/global-native.md"],
  ["global", "windsurf", "global_rules", "always", [], null, "~/.codeium/windsurf/memories/global_rules.md"],
  ["global", "cursor", "personal", "always", [], "Personal preferences", "~/.cursor/rules/personal.mdc"],
  ["global", "kiro", "tone", "always", [], null, "~/.kiro/steering/tone.md"],
  ["project", "native", "style", "always", [], "House style", ".opencode/rules/style.md"], // priority 80
  [
    "project",
    "cursor",
    "api-design",
    "on-request",
    [],
    "How to design a REST endpoint",
    ".cursor/rules/api-design.mdc",
  ],
  ["project", "kiro", "api-standards", "conditional", ["src/api/**/*.ts"], null, ".kiro/steering/api-standards.md"],
  [
    "project",
    "windsurf",
    "architecture",
    "on-request",
    [],
    "Read when changing module boundaries",
    ".windsurf/rules/architecture.md",
  ],
  ["project", "cline", "clinerules", "always", [], null, ".clinerules"],
  ["project", "cursor", "commit-format", "manual", [], null, ".cursor/rules/commit-format.mdc"],
  ["project", "copilot", "copilot-instructions", "always", [], null, ".github/copilot-instructions.md"],
  ["project", "cursor", "cursorrules", "always", [], null, ".cursorrules"],
  ["project", "kiro", "deploy", "manual", [], null, ".kiro/steering/deploy.md"],
  ["project", "windsurf", "docs", "conditional", ["docs/**/*.md"], null, ".windsurf/rules/docs.md"],
  ["project", "copilot", "everywhere", "always", [], null, ".github/instructions/everywhere.instructions.md"],
  ["project", "windsurf", "formatting", "always", [], null, ".windsurf/rules/formatting.md"],
  [
    "project",
    "copilot",
    "frontend/css",
    "conditional",
    ["**/*.css", "**/*.scss"],
    "Styles",
    ".github/instructions/frontend/css.instructions.md",
  ],
  ["project", "claude", "general", "always", [], null, ".claude/rules/general.md"],
  ["project", "cursor", "pkg/a/conventions", "conditional", ["pkg/a/**"], null, "pkg/a/.cursor/rules/conventions.mdc"],
  [
    "project",
    "cursor",
    "pkg/a/react",
    "conditional",
    ["pkg/a/**/*.tsx", "pkg/a/src/hooks/**"],
    "React components in package a",
    "pkg/a/.cursor/rules/react.mdc",
  ],
  ["project", "kiro", "product", "always", [], null, ".kiro/steering/product.md"],
  ["project", "copilot", "python", "conditional", ["**/*.py"], null, ".github/instructions/python.instructions.md"],
  ["project", "windsurf", "release", "manual", [], null, ".windsurf/rules/release.md"],
  ["project", "claude", "security", "conditional", ["src/api/**", "src/auth/**"], null, ".claude/rules/security.md"],
  ["project", "native", "testing", "conditional", ["**/*.test.ts"], null, ".opencode/rules/testing.md"],
  [
    "project",
    "cursor",
    "typescript",
    "conditional",
    ["*.ts", "*.tsx"],
    "TypeScript conventions",
    ".cursor/rules/typescript.mdc",
  ],
  ["project", "windsurf", "windsurfrules", "always", [], null, ".windsurfrules"],
];

describe("the all-formats fixture", () => {
  test("loads with the expected names, sources, scopes, activations and message order", async () => {
    const loaded = await box.load();
    expect(loaded.rules.map(row)).toEqual(EXPECTED);
    expect(loaded.rules.find((rule) => rule.name === "style")?.priority).toBe(80);
  });

  test("every one of the seven formats is represented, in both scopes where it has a user folder", async () => {
    const { rules } = await box.load();
    const pairs = new Set(rules.map((rule) => `${rule.scope}:${rule.source}`));
    for (const source of ["native", "cursor", "claude", "windsurf", "cline", "copilot", "kiro"])
      expect(pairs.has(`project:${source}`), source).toBe(true);
    for (const source of ["native", "cursor", "windsurf", "kiro"])
      expect(pairs.has(`global:${source}`), source).toBe(true);
  });

  test("same names: the project's native rule shadows Cursor's and the global Claude Code rule; Claude Code shadows Kiro", async () => {
    const { shadowed } = await box.load();
    expect(
      shadowed.map(({ rule, by }) => [rule.name, `${rule.scope}:${rule.source}`, `${by.scope}:${by.source}`]),
    ).toEqual([
      ["style", "project:cursor", "project:native"],
      ["style", "global:claude", "project:native"],
      ["security", "project:kiro", "project:claude"],
    ]);
  });

  test("the only warning is the unknown front matter key, once for its file", async () => {
    const { warnings } = await box.load();
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".claude/rules/general.md"),
        message: 'front matter key "author" is not used by opencode-rulebook; kept and ignored',
      },
    ]);
    const { rules } = await box.load();
    expect(rules.find((rule) => rule.name === "general")?.unknownKeys).toEqual(["author"]);
  });

  test("references are included: `@../../docs/style-details.md` (front matter dropped) and Kiro's `#[[file:…]]`", async () => {
    const loaded = await box.load();
    const content = (name: string) => loaded.rules.find((rule) => rule.name === name)?.content;
    expect(content("style")).toBe("Follow the house style.\n\nIndent with two spaces. Prefer named exports.");
    expect(content("product")).toBe("# Product\n\nThe product is a to-do app for small teams.");
    expect(loaded.references).toEqual([
      join(box.project, "docs/style-details.md"),
      join(box.project, "docs/product.md"),
    ]);
  });

  test("AGENTS.md and CLAUDE.md are never read as rules", async () => {
    const { files } = await box.load();
    expect(files.map((file) => file.path).filter((path) => /(AGENTS|CLAUDE)\.md$/.test(path))).toEqual([]);
  });

  test("found files carry name, scope, source, path, displayPath, relPath and size", async () => {
    const { files } = await box.load();
    expect(files.find((file) => file.name === "pkg/a/react")).toEqual({
      name: "pkg/a/react",
      scope: "project",
      source: "cursor",
      trust: "repository",
      path: join(box.project, "pkg/a/.cursor/rules/react.mdc"),
      displayPath: "pkg/a/.cursor/rules/react.mdc",
      relPath: "react.mdc",
      size: expect.any(Number),
      version: { stamp: expect.any(String), changedAt: expect.any(Number) },
    });
    expect(files.find((file) => file.name === "cursorrules")).toMatchObject({
      relPath: ".cursorrules",
      displayPath: ".cursorrules",
    });
  });

  test("a nested .cursor/rules scopes to its folder: its rules apply to files there only", async () => {
    const { rules } = await box.load();
    const rule = (name: string) => rules.find((r) => r.name === name) as Rule;
    // The wording of the reason is the selection's (test/select/active.test.ts); here, that the folder's glob applies.
    expect(globsOf(rule("pkg/a/conventions"))).toEqual(["pkg/a/**"]);
    expect(whyRuleApplies(rule("pkg/a/conventions"), { files: ["pkg/a/src/app.tsx"] })).toBeDefined();
    expect(whyRuleApplies(rule("pkg/a/conventions"), { files: ["src/app.ts"] })).toBeUndefined();
    expect(whyRuleApplies(rule("pkg/a/react"), { files: ["pkg/a/src/deep/Button.tsx"] })).toBeDefined();
    expect(whyRuleApplies(rule("pkg/a/react"), { files: ["pkg/b/Button.tsx"] })).toBeUndefined();
    expect(whyRuleApplies(rule("typescript"), { files: ["pkg/b/index.ts"] })).toBeDefined();
  });

  test("working from the sub-folder pkg/a of the worktree: the nested rules keep their names and folder scope", async () => {
    const { rules } = await box.load({}, { directory: join(box.project, "pkg", "a") });
    expect(rules.filter((rule) => rule.name.startsWith("pkg/a/")).map((rule) => [rule.name, globsOf(rule)])).toEqual([
      ["pkg/a/conventions", ["pkg/a/**"]],
      ["pkg/a/react", ["pkg/a/**/*.tsx", "pkg/a/src/hooks/**"]],
    ]);
  });

  test("loading twice gives the same rules in the same order", async () => {
    const first = await box.load();
    const second = await box.load();
    expect(second.rules).toEqual(first.rules);
    expect(second.shadowed).toEqual(first.shadowed);
  });

  test("ALL_SOURCES is the precedence order", () => {
    expect(ALL_SOURCES.map((source) => source.id)).toEqual([
      "managed",
      "native",
      "extra",
      "cursor",
      "claude",
      "windsurf",
      "cline",
      "copilot",
      "kiro",
      "antigravity",
      "continue",
      "augment",
      "amazonq",
      "kilo",
      "roo",
      "zed",
      "junie",
      "aiassistant",
      "gemini",
      "openhands",
    ]);
  });

  test("the .clinerules folder variant: its .md files are rules, read instead of a file", async () => {
    await rm(join(box.project, ".clinerules"));
    await box.write(join(box.project, ".clinerules"), {
      "database.md": '---\npaths:\n  - "src/db/**"\n---\n\nMigrations are reversible.\n',
      "workflow.md": "Run the tests before saying done.\n",
      "notes.txt": "Not a rule file.\n",
    });
    const { rules } = await box.load({ sources: ["cline"] });
    expect(rules.map((rule) => [rule.name, activationOf(rule), globsOf(rule), rule.displayPath])).toEqual([
      ["database", "conditional", ["src/db/**"], ".clinerules/database.md"],
      ["workflow", "always", [], ".clinerules/workflow.md"],
    ]);
  });

  test("a copy of the project elsewhere, read by one source: its project rules and the user-level ones", async () => {
    const copy = join(box.root, "again");
    await cp(join(box.project), copy, { recursive: true });
    const { rules } = await box.load({ sources: ["kiro"] }, { directory: copy, worktree: copy });
    expect(rules.map((rule) => rule.name)).toEqual(["tone", "api-standards", "deploy", "product", "security"]);
  });
});
