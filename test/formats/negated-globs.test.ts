/**
 * A leading `!` in the globs of the tools that read them from the project
 * root (Claude Code `paths`, Cline `paths`, Copilot `applyTo`): read as "not"
 * only where the tool's matcher does (Cline: picomatch, per glob), else
 * refused with a warning; never read as a glob that matches every file.
 */
import { join } from "node:path";
import micromatch from "micromatch";
import { describe, expect, test } from "vitest";
import { activeRulesAmong } from "../../src/select/active.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

let box: Box;
useBox((made) => (box = made));

const FILES = ["README.md", "docs/guide.md", "src/a.ts", "src/a.test.ts", "a.test.ts"];

/** The files (of FILES) that make the rule apply, one file at a time. */
async function filesApplying(source: string, name: string): Promise<string[]> {
  const { rules } = await loadSource(box, source);
  return FILES.filter((file) => activeRulesAmong(rules, { files: [file] }).some(({ rule }) => rule.name === name));
}

const EXTGLOB = 'the extglob "!(…)" is not supported; use {a,b} or @(a|b)';

describe("Claude Code reads no negation: a negated glob is refused", () => {
  test("beside other paths it is left out; alone, the rule waits to be mentioned or asked for; !(…) is an extglob", async () => {
    await box.write(join(box.project, ".claude/rules"), {
      "no-tests.md": '---\npaths:\n  - "src/**/*.ts"\n  - "!src/**/*.test.ts"\n---\nSource only.',
      "not-md.md": '---\npaths: "!*.md"\n---\nNot Markdown.',
      "twice.md": '---\ndescription: Markdown\npaths: ["!!*.md"]\n---\nMarkdown.',
      "extglob.md": '---\npaths: ["!(*.test.ts)"]\n---\nNo tests.',
    });
    const { summaries, warnings } = await loadSource(box, "claude");
    expect(summaries.map(({ name, mode, globs }) => [name, mode, globs])).toEqual([
      ["extglob", "manual", []],
      ["no-tests", "conditional", ["src/**/*.ts"]],
      ["not-md", "manual", []],
      ["twice", "on-request", []],
    ]);
    expect(await filesApplying("claude", "no-tests")).toEqual(["src/a.ts", "src/a.test.ts"]);
    for (const name of ["not-md", "twice", "extglob"]) expect(await filesApplying("claude", name)).toEqual([]);
    const rules = join(box.project, ".claude/rules");
    expect(shown(warnings)).toEqual([
      {
        path: join(rules, "extglob.md"),
        line: 2,
        message: `glob "!(*.test.ts)" cannot be used (${EXTGLOB}); this glob is ignored; no usable glob is left, so the rule applies only when mentioned`,
      },
      {
        path: join(rules, "no-tests.md"),
        line: 2,
        message: 'glob "!src/**/*.test.ts" cannot be used (Claude Code reads no "!" negation); this glob is ignored',
      },
      {
        path: join(rules, "not-md.md"),
        line: 2,
        message:
          'glob "!*.md" cannot be used (Claude Code reads no "!" negation); this glob is ignored; no usable glob is left, so the rule applies only when mentioned',
      },
      {
        path: join(rules, "twice.md"),
        line: 3,
        message:
          'glob "!!*.md" cannot be used (Claude Code reads no "!" negation); this glob is ignored; no usable glob is left, so the rule applies only on request',
      },
    ]);
  });

  test("a rule left with keywords applies by them", async () => {
    await box.write(join(box.project, ".claude/rules"), { "k.md": '---\npaths: "!*.md"\nkeywords: [deploy]\n---\nK.' });
    const { rules, warnings } = await loadSource(box, "claude");
    expect(activeRulesAmong(rules, { files: ["src/a.ts"] })).toEqual([]);
    expect(activeRulesAmong(rules, { files: [], prompt: "deploy it" }).map(({ rule }) => rule.name)).toEqual(["k"]);
    expect(shown(warnings).map((warning) => warning.message)).toEqual([
      'glob "!*.md" cannot be used (Claude Code reads no "!" negation); this glob is ignored; no usable glob is left, so the rule applies only by its keywords',
    ]);
  });
});

describe("Cline matches each glob with picomatch, which reads leading !s as not: anchored after them", () => {
  test("!*.md, !!*.md and !src/** apply to the files picomatch matches; !(…) is refused as an extglob", async () => {
    const globs = ["!*.md", "!!*.md", "!src/**"];
    await box.write(join(box.project, ".clinerules"), {
      ...Object.fromEntries(globs.map((glob, i) => [`g${i}.md`, `---\npaths: ["${glob}"]\n---\nG${i}.`])),
      "extglob.md": '---\npaths: ["!(*.test.ts)"]\n---\nNo tests.',
    });
    for (const [i, glob] of globs.entries()) {
      // Cline: `picomatch(glob, { dot: true })`, which is what micromatch.isMatch runs for one glob.
      const cline = (file: string) => micromatch.isMatch(file, glob, { dot: true });
      expect(await filesApplying("cline", `g${i}`), glob).toEqual(FILES.filter(cline));
    }
    expect(await filesApplying("cline", "g0")).toEqual(["docs/guide.md", "src/a.ts", "src/a.test.ts", "a.test.ts"]);
    expect(await filesApplying("cline", "g1")).toEqual(["README.md"]);
    const { summaries, warnings } = await loadSource(box, "cline");
    expect(summaries.map(({ name, globs }) => [name, globs])).toEqual([
      ["extglob", []],
      ["g0", ["!./*.md"]],
      ["g1", ["!!./*.md"]],
      ["g2", ["!src/**"]],
    ]);
    expect(await filesApplying("cline", "extglob")).toEqual([]);
    expect(shown(warnings).map((warning) => [warning.line, warning.message])).toEqual([
      [
        2,
        `glob "!(*.test.ts)" cannot be used (${EXTGLOB}); this glob is ignored; no usable glob is left, so the rule applies only when mentioned`,
      ],
    ]);
  });
});

describe("Copilot's matcher reads a ! as a character: a negated applyTo glob is refused", () => {
  test("beside other globs it is left out; alone, the file has no applyTo (on request by its description)", async () => {
    await box.write(join(box.project, ".github/instructions"), {
      "ts.instructions.md": '---\napplyTo: "src/**/*.ts,!src/**/*.test.ts"\n---\nTS.',
      "docs.instructions.md": '---\ndescription: Not Markdown\napplyTo: "!*.md"\n---\nDocs.',
      "ext.instructions.md": '---\napplyTo: "!(*.md)"\n---\nExt.',
    });
    const { summaries, warnings } = await loadSource(box, "copilot");
    expect(summaries.map(({ name, mode, globs }) => [name, mode, globs])).toEqual([
      ["docs", "on-request", []],
      ["ext", "manual", []],
      ["ts", "conditional", ["src/**/*.ts"]],
    ]);
    expect(await filesApplying("copilot", "ts")).toEqual(["src/a.ts", "src/a.test.ts"]);
    for (const name of ["docs", "ext"]) expect(await filesApplying("copilot", name)).toEqual([]);
    expect(shown(warnings).map((warning) => [warning.line, warning.message])).toEqual([
      [
        3,
        'glob "!*.md" cannot be used (GitHub Copilot reads no "!" negation); this glob is ignored; no usable glob is left, so the rule applies only on request',
      ],
      [
        2,
        `glob "!(*.md)" cannot be used (${EXTGLOB}); this glob is ignored; no usable glob is left, so the rule applies only when mentioned`,
      ],
      [2, 'glob "!src/**/*.test.ts" cannot be used (GitHub Copilot reads no "!" negation); this glob is ignored'],
    ]);
  });
});
