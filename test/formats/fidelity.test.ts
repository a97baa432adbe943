/**
 * Rules behave as in the tool they were written for (issue 11): keys a tool
 * ignores are ignored here too, Kiro's auto rules are offered by name, and
 * every rule from another tool carries that tool's name for its type.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { activeRulesAmong } from "../../src/select/active.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

let box: Box;
useBox((made) => (box = made));

const activeNames = (rules: Parameters<typeof activeRulesAmong>[0], files: string[], prompt?: string) =>
  activeRulesAmong(rules, { files, prompt }).map(({ rule }) => rule.name);

describe("Claude Code and Cline read only paths", () => {
  test("a Claude Code rule scoped with globs or applyTo is always on, as in Claude Code, with a warning naming the key and its line", async () => {
    await box.write(join(box.project, ".claude/rules"), {
      "commits.md":
        "---\ndescription: Commit messages\nglobs: src/**/*.ts\n---\nWrite commit messages in the imperative.",
      "copilot-style.md": '---\napplyTo: "**/*.py"\n---\nType every function.',
      "scoped.md": '---\npaths: ["src/**"]\nalwaysApply: false\n---\nOnly for src.',
    });
    const { rules, summaries, warnings } = await loadSource(box, "claude");
    expect(summaries).toEqual([
      { name: "commits", mode: "always", globs: [], description: "Commit messages" },
      { name: "copilot-style", mode: "always", globs: [], description: undefined },
      { name: "scoped", mode: "conditional", globs: ["src/**"], description: undefined },
    ]);
    // "write a commit message", touching no file, gets the commit rules.
    expect(activeNames(rules, [], "write a commit message")).toEqual(["commits", "copilot-style"]);
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".claude/rules/commits.md"),
        line: 3,
        message:
          'Claude Code does not read front matter key "globs" (it reads "paths"); ignored here too, as in Claude Code: the rule is always on (write "paths" to limit it to files)',
      },
      {
        path: join(box.project, ".claude/rules/copilot-style.md"),
        line: 2,
        message:
          'Claude Code does not read front matter key "applyTo" (it reads "paths"); ignored here too, as in Claude Code: the rule is always on (write "paths" to limit it to files)',
      },
      {
        path: join(box.project, ".claude/rules/scoped.md"),
        line: 3,
        message:
          'Claude Code does not read front matter key "alwaysApply" (it reads "paths"); ignored here too, as in Claude Code',
      },
    ]);
    expect(rules.map((rule) => rule.toolType)).toEqual(["always", "always", "paths"]);
  });

  test("a Cline rule with globs is always on, as in Cline; paths still scope one", async () => {
    await box.write(join(box.project, ".clinerules"), {
      "react.md": "---\nglobs: ['src/components/**']\n---\nFunctional components only.",
      "db.md": "---\npaths: src/db/**\n---\nMigrations only.",
    });
    const { rules, summaries, warnings } = await loadSource(box, "cline");
    expect(summaries).toEqual([
      { name: "db", mode: "conditional", globs: ["src/db/**"], description: undefined },
      { name: "react", mode: "always", globs: [], description: undefined },
    ]);
    expect(activeNames(rules, ["README.md"])).toEqual(["react"]);
    expect(shown(warnings).map((warning) => [warning.line, warning.message])).toEqual([
      [
        2,
        'Cline does not read front matter key "globs" (it reads "paths"); ignored here too, as in Cline: the rule is always on (write "paths" to limit it to files)',
      ],
    ]);
    expect(rules.map((rule) => rule.toolType)).toEqual(["paths", "always"]);
  });
});

describe("Kiro auto rules without a description", () => {
  test("are listed on request by their first heading (and Kiro's name when it differs from the file's), never left manual", async () => {
    await box.write(join(box.project, ".kiro/steering"), {
      "api-standards.md":
        "---\ninclusion: auto\nname: api-standards\n---\n\n```md\n# not this\n```\n\n## REST API Standards\n\nUse plural nouns.",
      "deploy.md": "---\ninclusion: auto\nname: release\n---\n# Deploying\n\nTag first.",
      "bare.md": "---\ninclusion: auto\n---\nNo heading at all.",
      "described.md": "---\ninclusion: auto\ndescription: Database access\n---\n# DB\n\nUse the pool.",
    });
    const { rules, summaries } = await loadSource(box, "kiro");
    expect(summaries).toEqual([
      { name: "api-standards", mode: "on-request", globs: [], description: "REST API Standards" },
      { name: "bare", mode: "on-request", globs: [], description: "bare" },
      { name: "deploy", mode: "on-request", globs: [], description: "release: Deploying" },
      { name: "described", mode: "on-request", globs: [], description: "Database access" },
    ]);
    expect(rules.map((rule) => rule.toolType)).toEqual(["auto", "auto", "auto", "auto"]);
  });

  test("each Kiro inclusion mode is named as Kiro names it; absent is Kiro's default, always", async () => {
    await box.write(join(box.project, ".kiro/steering"), {
      "a.md": "Always, by default.",
      "b.md": "---\ninclusion: fileMatch\nfileMatchPattern: 'src/**/*.tsx'\n---\nComponents.",
      "c.md": "---\ninclusion: manual\n---\nBy hand.",
    });
    const { rules } = await loadSource(box, "kiro");
    expect(rules.map((rule) => [rule.name, rule.toolType])).toEqual([
      ["a", "always"],
      ["b", "fileMatch"],
      ["c", "manual"],
    ]);
  });
});

test("GitHub Copilot's files are named as GitHub names them: repository-wide, path-specific, or without applyTo", async () => {
  await box.write(join(box.project, ".github"), {
    "copilot-instructions.md": "Everywhere.",
    "instructions/py.instructions.md": "---\napplyTo: '**/*.py'\n---\nPython.",
    "instructions/notes.instructions.md": "---\ndescription: Release notes\n---\nNotes.",
  });
  const { rules } = await loadSource(box, "copilot");
  expect(rules.map((rule) => [rule.name, rule.toolType])).toEqual([
    ["copilot-instructions", "repository-wide"],
    ["notes", "no applyTo"],
    ["py", "path-specific"],
  ]);
});

test("native rules have no tool type: no metadata still means always", async () => {
  await box.write(join(box.project, ".opencode/rules"), { "plain.md": "Always." });
  const { rules, summaries } = await loadSource(box, "native");
  expect(summaries).toEqual([{ name: "plain", mode: "always", globs: [], description: undefined }]);
  expect(rules[0]?.toolType).toBeUndefined();
});

describe("each reference syntax only in the formats that define it, never in code", () => {
  test("Kiro's #[[file:…]] written from the workspace root resolves there when it is not next to the steering file", async () => {
    await box.write(box.project, {
      ".kiro/steering/ui.md": "Follow the page layout:\n\n#[[file:src/app/page.tsx]]\n\nand #[[file:notes.md]].",
      ".kiro/steering/notes.md": "NEXT TO THE RULE",
      "notes.md": "AT THE ROOT",
      "src/app/page.tsx": "export default function Page() {}",
    });
    const { rules, warnings } = await loadSource(box, "kiro");
    expect(rules.find((rule) => rule.name === "ui")?.content).toBe(
      "Follow the page layout:\n\nexport default function Page() {}\n\nand NEXT TO THE RULE.",
    );
    expect(warnings).toEqual([]);
  });

  test("a Kiro reference missing everywhere names both places; an @path line in a Kiro or Copilot rule is text, without a warning", async () => {
    await box.write(box.project, {
      ".kiro/steering/gone.md": "See #[[file:src/gone.ts]].\n\n@docs/style.md",
      ".github/instructions/py.instructions.md":
        "---\napplyTo: '**/*.py'\n---\nDecorate workflows:\n\n@workflow.defn\n\n@docs/style.md",
      "docs/style.md": "STYLE",
    });
    const kiro = await loadSource(box, "kiro");
    expect(kiro.rules[0]?.content).toBe("See #[[file:src/gone.ts]].\n\n@docs/style.md");
    expect(shown(kiro.warnings).map((warning) => warning.message)).toEqual([
      `reference #[[file:src/gone.ts]] names a file that does not exist (${join(box.project, ".kiro/steering/src/gone.ts")} or ${join(box.project, "src/gone.ts")}); left as text`,
    ]);
    const copilot = await loadSource(box, "copilot");
    expect(copilot.rules[0]?.content).toBe("Decorate workflows:\n\n@workflow.defn\n\n@docs/style.md");
    expect(copilot.warnings).toEqual([]);
  });

  test("a reference in code is text: a Python decorator in a fence, a Kiro reference in inline code", async () => {
    await box.write(box.project, {
      ".claude/rules/temporal.md":
        "Workflows:\n\n````python\n```\n@workflow.defn\nclass Order: ...\n````\n\n@../../docs/style.md",
      ".kiro/steering/doc.md": "Write `#[[file:other.md]]` to include a file.",
      ".kiro/steering/other.md": "OTHER",
      "docs/style.md": "STYLE",
    });
    const claude = await loadSource(box, "claude");
    expect(claude.rules[0]?.content).toBe(
      "Workflows:\n\n````python\n```\n@workflow.defn\nclass Order: ...\n````\n\nSTYLE",
    );
    expect(claude.warnings).toEqual([]);
    const kiro = await loadSource(box, "kiro");
    expect(kiro.rules.find((rule) => rule.name === "doc")?.content).toBe(
      "Write `#[[file:other.md]]` to include a file.",
    );
    expect(kiro.warnings).toEqual([]);
  });
});
