/**
 * Issue 29's formats in the hosts: rules written for Google Antigravity,
 * Continue, Roo Code and Gemini CLI (a sub-folder's GEMINI.md, issue 44)
 * reach the model as those tools apply them. OpenCode 1
 * is the real `opencode serve` (1.18.33) with a fake model; OpenCode 2 the
 * simulated host.
 */
import { describe, expect, test } from "vitest";
import { EVERY_HOST, hostForTheTable, requestText } from "../support/scenario-checks.js";
import type { SeenRequest } from "../support/scenario-driver.js";

const MARK = {
  always: "MARK-HOUSE-ALWAYS-2c8",
  antigravity: "MARK-ANTIGRAVITY-GLOB-TS-6a1",
  continueRegex: "MARK-CONTINUE-REGEX-REACT-9d3",
  rooArchitect: "MARK-ROO-ARCHITECT-4e7",
  geminiHidden: "MARK-GEMINI-GITHUB-8b2",
  geminiIgnored: "MARK-GEMINI-GENERATED-1f5",
  sameText: "MARK-SAME-TEXT-3c9",
} as const;

const FILES: Record<string, string> = {
  // Antigravity: a glob rule, applied when a matching file comes into the session.
  ".agent/rules/typescript.md": `---\ntrigger: glob\nglobs: "**/*.ts"\n---\n# TypeScript\n- ${MARK.antigravity}: prefer unknown to any.\n`,
  // Continue: a regex rule, applied when a file in the session holds a match (no globs: any file).
  ".continue/rules/react-hooks.md": `---\nname: React hooks\nregex: "useEffect\\\\("\n---\n# Hooks\n- ${MARK.continueRegex}: every effect lists its dependencies.\n`,
  // Roo Code: rules for the architect mode, OpenCode's plan agent.
  ".roo/rules-architect/design.md": `# Design\n- ${MARK.rooArchitect}: write the plan as numbered steps.\n`,
  "src/app.ts": "export const answer = 42;\n",
  "web/Widget.jsx": "import { useEffect } from 'react';\nuseEffect(() => load(), [id]);\n",
  "web/Plain.jsx": "export const Plain = () => null;\n",
  // Gemini CLI: a sub-folder's GEMINI.md, in a hidden folder and in a git-ignored one, loaded when a file under it is read.
  ".github/GEMINI.md": `# Workflows\n- ${MARK.geminiHidden}: pin every action to a commit.\n`,
  ".github/workflows/ci.yml": "on: push\n",
  "generated/GEMINI.md": `# Generated\n- ${MARK.geminiIgnored}: never edit by hand.\n`,
  "generated/api.ts": "export {};\n",
  ".gitignore": "generated/\n",
  // One rule kept for two tools by rulesync: a Cursor and a Claude Code copy of the same text, under other names.
  ".cursor/rules/style.mdc": `---\nalwaysApply: true\n---\n- ${MARK.sameText}: small functions.`,
  ".claude/rules/code-style.md": `- ${MARK.sameText}: small functions.`,
};

const count = (request: SeenRequest, mark: string) => requestText(request).split(mark).length - 1;

describe.each(EVERY_HOST)("%s", (_name, driver) => {
  const host = hostForTheTable(driver, {
    projectRules: { "house.md": `---\nalwaysApply: true\n---\n- ${MARK.always}\n` },
    projectFiles: FILES,
  });

  test("Antigravity: a glob rule comes with the read of a matching file, not before", { timeout: 30_000 }, async () => {
    const session = await host.newSession();
    const [before, after] = await host.turn(session, "What does the app hold?", [
      { read: host.projectPath("src/app.ts") },
      { answer: "42" },
    ]);
    expect(count(before as SeenRequest, MARK.antigravity)).toBe(0);
    expect(count(after as SeenRequest, MARK.antigravity)).toBe(1);
  });

  test("Continue: a regex rule comes with the read of a file whose content matches, and not with one whose content does not", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const plain = await host.turn(session, "Look at the plain component.", [
      { read: host.projectPath("web/Plain.jsx") },
      { answer: "nothing" },
    ]);
    expect(plain.map((request) => count(request, MARK.continueRegex))).toEqual([0, 0]);
    const widget = await host.turn(session, "And the widget?", [
      { read: host.projectPath("web/Widget.jsx") },
      { answer: "an effect" },
    ]);
    expect(widget.map((request) => count(request, MARK.continueRegex))).toEqual([0, 1]);
  });

  test("Gemini CLI: a GEMINI.md in a hidden or git-ignored folder comes with the read of a file under it", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const [before, hidden, ignored] = await host.turn(session, "Check the CI workflow and the generated API.", [
      { read: host.projectPath(".github/workflows/ci.yml") },
      { read: host.projectPath("generated/api.ts") },
      { answer: "fine" },
    ]);
    expect([before, hidden, ignored].map((request) => count(request as SeenRequest, MARK.geminiHidden))).toEqual([
      0, 1, 1,
    ]);
    expect([before, hidden, ignored].map((request) => count(request as SeenRequest, MARK.geminiIgnored))).toEqual([
      0, 0, 1,
    ]);
  });

  test("the same text in a Cursor and a Claude Code rule reaches the model once", { timeout: 30_000 }, async () => {
    const session = await host.newSession();
    const [first] = await host.turn(session, "Hello.", [{ answer: "hi" }]);
    expect(count(first as SeenRequest, MARK.sameText)).toBe(1);
    expect(count(first as SeenRequest, MARK.always)).toBe(1);
  });

  test("Roo Code: a rules-architect rule reaches a plan session and not a build session", {
    timeout: 30_000,
  }, async () => {
    const plan = await host.newSession();
    const [planned] = await host.turn(plan, "Plan the feature.", [], { agent: "plan" });
    expect(count(planned as SeenRequest, MARK.rooArchitect)).toBe(1);
    const build = await host.newSession();
    const [built] = await host.turn(build, "Build the feature.", [], { agent: "build" });
    expect(count(built as SeenRequest, MARK.rooArchitect)).toBe(0);
    expect(count(built as SeenRequest, MARK.always)).toBe(1);
  });
});
