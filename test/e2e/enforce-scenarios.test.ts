/**
 * Rules that hold (issue 28), one table on both hosts: OpenCode 1 is the real
 * `opencode serve` (1.18.33) with a fake model scripted to break rules;
 * OpenCode 2 is the simulated host. Each row asserts what a user would see:
 * the file on disk, whether the command ran, and what the model read next.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, test, vi } from "vitest";
import {
  EVERY_HOST,
  expectEachExtendsTheLast,
  hostForTheTable,
  requestText,
  lastToolText,
} from "../support/scenario-checks.js";
import type { SeenRequest } from "../support/scenario-driver.js";

const RULE_TEXT = {
  console: "MARK-NO-CONSOLE-41c: log through src/log.ts.",
  push: "MARK-NO-FORCE-PUSH-9d2: never force-push.",
  todo: "MARK-NO-TODO-6e0: open an issue instead of a TODO.",
  hostile: "MARK-HOSTILE-1f7: no runs of a.",
  userGit: "MARK-USER-GIT-5b3: the user's own: never force-push, anywhere.",
  repoGit: "MARK-REPO-GIT-8c1: the repository's git conventions.",
  drop: "MARK-NO-DROP-2e4: never drop a database.",
} as const;

const RULES: Record<string, string> = {
  "no-console.md": `---\nalwaysApply: false\nglobs: src/**/*.ts\nforbid:\n  - "console.log("\n---\n${RULE_TEXT.console}\n`,
  "no-force-push.md": `---\nalwaysApply: false\nforbidCommands:\n  - /git\\s+push\\s+(-f|--force)\\b/\n---\n${RULE_TEXT.push}\n`,
  "no-todo.md": `---\nalwaysApply: false\nglobs: notes/**\nforbid: TODO\nenforce: warn\n---\n${RULE_TEXT.todo}\n`,
  "hostile.md": `---\nalwaysApply: false\nglobs: hostile/**\nforbid: "/(a+)+$/"\n---\n${RULE_TEXT.hostile}\n`,
  // Named like the user's global rule: it takes the name's text, not what the user's rule forbids.
  "git.md": `${RULE_TEXT.repoGit}\n`,
  "no-drop.md": `---\nalwaysApply: false\nforbidCommands: dropdb\n---\n${RULE_TEXT.drop}\n`,
};
const GLOBAL_RULES: Record<string, string> = {
  "git.md": `---\nalwaysApply: false\nforbidCommands:\n  - /\\bgit\\s+push\\b.*\\s(-f|--force)(\\s|$)/\n---\n${RULE_TEXT.userGit}\n`,
};
const FILES = {
  "src/legacy.ts": 'export function legacy() {\n  console.log("kept");\n  return 1;\n}\n',
  "scripts/run.js": "// scripts are not under the rule's globs\n",
};

const count = (request: SeenRequest | undefined, mark: string) =>
  request ? requestText(request).split(mark).length - 1 : 0;

describe.each(EVERY_HOST)("%s", (_name, driver) => {
  const host = hostForTheTable(driver, { projectRules: RULES, projectFiles: FILES, globalRules: GLOBAL_RULES });

  test("a write adding console.log( to src/ is refused, the file never holds it, and the corrected write goes through", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("src/x.ts");
    const requests = await host.turn(session, "Add a greeting module.", [
      { write: file, content: 'export function greet() {\n  console.log("hi");\n}\n' },
      { write: file, content: 'import { log } from "./log";\nexport function greet() {\n  log("hi");\n}\n' },
      { answer: "done" },
    ]);
    const [, afterRefusal, afterWrite] = requests;
    // The model read the refusal, naming rule, pattern and line, and the rule's text, once.
    expect(lastToolText(afterRefusal)).toContain(
      'Rule "no-console" forbids `console.log(` in "src/x.ts" line 2: console.log("hi");',
    );
    expect(count(afterRefusal, RULE_TEXT.console)).toBe(1);
    // The corrected write went through; the file never held the forbidden call.
    expect(readFileSync(file, "utf8")).toContain('log("hi")');
    expect(readFileSync(file, "utf8")).not.toContain("console.log(");
    expect(count(afterWrite, RULE_TEXT.console)).toBe(1);
    // A refusal is a tool result at the end: every request extends the one before.
    expectEachExtendsTheLast(requests);
  });

  test("a second refusal in the same window names the rule and the line, not its text again", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("src/y.ts");
    const requests = await host.turn(session, "Write two modules.", [
      { write: file, content: "console.log(1);\n" },
      { write: file, content: "console.log(2);\n" },
      { answer: "giving up" },
    ]);
    expect(lastToolText(requests[2])).toContain("console.log(2);");
    expect(count(requests[2], RULE_TEXT.console)).toBe(1);
    expect(existsSync(file)).toBe(false);
  });

  test("an edit of a file that already has console.log elsewhere goes through", { timeout: 60_000 }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("src/legacy.ts");
    await host.turn(session, "Return 2.", [
      { edit: file, oldString: "return 1;", newString: "return 2;" },
      { answer: "done" },
    ]);
    expect(readFileSync(file, "utf8")).toContain("return 2;");
  });

  test("a file outside the rule's globs is not checked", { timeout: 60_000 }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("scripts/debug.js");
    await host.turn(session, "Add a debug script.", [
      { write: file, content: 'console.log("debug");\n' },
      { answer: "done" },
    ]);
    expect(readFileSync(file, "utf8")).toContain("console.log(");
  });

  test("git push --force never runs; a harmless command does", { timeout: 60_000 }, async () => {
    const session = await host.newSession();
    const marker = host.projectPath("pushed.txt");
    const harmless = host.projectPath("listed.txt");
    const requests = await host.turn(session, "Publish it.", [
      { bash: `echo pushed > ${marker} && git push --force origin main` },
      { bash: `echo listed > ${harmless}` },
      { answer: "done" },
    ]);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(harmless)).toBe(true);
    expect(lastToolText(requests[1])).toContain('Rule "no-force-push" forbids');
    expect(count(requests[1], RULE_TEXT.push)).toBe(1);
  });

  test("a warn rule lets the call run, and its result carries the rule once", { timeout: 60_000 }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("notes/plan.md");
    const requests = await host.turn(session, "Write the plan.", [
      { write: file, content: "# Plan\nTODO: decide\n" },
      { write: host.projectPath("notes/more.md"), content: "TODO: more\n" },
      { answer: "done" },
    ]);
    expect(readFileSync(file, "utf8")).toContain("TODO: decide");
    expect(lastToolText(requests[1])).toContain(
      'Rule "no-todo" forbids `TODO` in "notes/plan.md" line 2: TODO: decide',
    );
    expect(count(requests[1], RULE_TEXT.todo)).toBe(1);
    // The second warning names the rule and the line only.
    expect(lastToolText(requests[2])).toContain("TODO: more");
    expect(count(requests[2], RULE_TEXT.todo)).toBe(1);
    expectEachExtendsTheLast(requests);
  });

  test("/(a+)+$/ against a 50,000-character write is checked within the plugin's bound", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("hostile/input.txt");
    const requests = await host.turn(session, "Write the fixture.", [
      { write: file, content: `${"a".repeat(50_000)}b` },
      { answer: "done" },
    ]);
    // Matched in linear time: checked in full (no "could not check all" in the log), and let through as it breaks nothing.
    expect(readFileSync(file, "utf8").length).toBe(50_001);
    expect(host.pluginLog()).not.toContain("Could not check all");
    expect(lastToolText(requests[1])).not.toContain("refused");
  });

  test("a repository rule named like the user's global force-push rule does not switch it off: the push is refused, naming the user's rule", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const marker = host.projectPath("force-pushed.txt");
    const requests = await host.turn(session, "Ship it.", [
      { bash: `echo pushed > ${marker} && git push origin main --force` },
      { answer: "done" },
    ]);
    expect(existsSync(marker)).toBe(false);
    const refusal = lastToolText(requests[1]);
    expect(refusal).toContain('Rule "git" forbids');
    expect(refusal).toContain("shadows its text, not what it forbids");
    // The user's rule's text comes with the refusal: the model learns why.
    expect(refusal).toContain(RULE_TEXT.userGit);
    expect(host.pluginLog()).toContain(
      "a less trusted rule of the same name: its text is not delivered, but what it forbids still holds",
    );
  });

  test("an edit turning console.info( into console.log( inside a line is refused: it is judged by the file it makes", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("src/greet.ts");
    writeFileSync(file, 'export function greet() {\n  console.info("hi");\n}\n');
    const requests = await host.turn(session, "Use log instead of info.", [
      { edit: file, oldString: "info", newString: "log" },
      { answer: "ok" },
    ]);
    expect(readFileSync(file, "utf8")).toContain("console.info(");
    expect(lastToolText(requests[1])).toContain(
      'Rule "no-console" forbids `console.log(` in "src/greet.ts" line 2: console.log("hi");',
    );
  });

  test("a call that switches a rule off runs, and the model and the log are told the user will see it", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const rule = host.projectPath(".opencode/rules/no-drop.md");
    const requests = await host.turn(session, "Relax the database rule.", [
      { write: rule, content: `---\nenabled: false\nforbidCommands: dropdb\n---\n${RULE_TEXT.drop}\n` },
      { answer: "done" },
    ]);
    expect(readFileSync(rule, "utf8")).toContain("enabled: false");
    expect(lastToolText(requests[1])).toContain("weakens a rule that holds in this project");
    expect(lastToolText(requests[1])).toContain('- Rule "no-drop" (.opencode/rules/no-drop.md): switched off');
    expect(host.pluginLog()).toContain("weakened rules that forbid");
    // The Rules panel marks it (a host whose terminal UI has no panel draws nothing to mark).
    await vi.waitFor(
      async () => {
        const panel = await host.rulesPanel(session);
        if (panel !== "no panel") expect(panel.join("\n")).toContain("⚠ weakened by the agent: no-drop");
      },
      { timeout: 5000, interval: 20 },
    );
  });

  test("removing a violation is never blocked", { timeout: 60_000 }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("src/cleanup.ts");
    writeFileSync(file, 'export const a = 1;\nconsole.log("old");\n');
    await host.turn(session, "Remove the log.", [
      { edit: file, oldString: 'console.log("old");\n', newString: "" },
      { answer: "done" },
    ]);
    expect(readFileSync(file, "utf8")).not.toContain("console.log");
  });
});
