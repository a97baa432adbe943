/**
 * A tool call checked by the engine (src/engine/check-call.ts, src/session/call-check.ts), no host: a
 * write against the file on disk, an edit or a patch applied to it (the
 * calls built by the OpenCode adapter), the user's `enforce` option, a subagent's
 * session, a file that cannot be read, a check that runs out of time, and
 * rule files, which are never checked.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { SessionPort } from "../../src/engine/contract.js";
import { type RunningRulebook, startRulebook } from "../../src/engine/rulebook.js";
import type { ProposedChange } from "../../src/enforce/proposed.js";
import { proposedChanges } from "../../src/hosts/opencode/tool-changes.js";
import { createLogger } from "../../src/log.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { parseOptions } from "../../src/options.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";

const port: SessionPort = {
  sendRules: async () => ({ created: 1 }),
  readWindow: async () => ({ rules: [], choice: {}, movedOn: false }),
};

let project: TempProject;
let rulebook: RunningRulebook;
const logged: string[] = [];

async function start(options: Record<string, unknown> = {}, fs = nodeRuleFs, subagents = true, checkMs?: number) {
  rulebook = await startRulebook({
    ...(checkMs === undefined ? {} : { limits: { checkMs } }),
    port,
    directory: project.projectDir,
    worktree: project.projectDir,
    env: process.env,
    home: project.home,
    fs,
    options: { ...parseOptions(options, {}).options, subagents },
    log: createLogger(async (level, message) => void logged.push(`${level}: ${message}`), false),
    creationGraceMs: 0,
  });
}

beforeEach(async () => {
  project = await tempProject();
  logged.length = 0;
  await project.writeRule(
    "project",
    "no-console.md",
    '---\nalwaysApply: false\nglobs: src/**/*.ts\nforbid: "console.log("\n---\nLog through src/log.ts.\n',
  );
  await project.writeRule(
    "project",
    "no-force.md",
    "---\nalwaysApply: false\nforbidCommands: /--force\\b/\nenforce: warn\n---\nNever force.\n",
  );
  await mkdir(join(project.projectDir, "src"), { recursive: true });
  await writeFile(join(project.projectDir, "src/old.ts"), 'export const a = 1;\nconsole.log("kept");\n');
});
afterEach(async () => {
  rulebook?.dispose();
  await project.cleanup();
});

const call = (changes: ProposedChange[], tool = "write") => ({
  tool,
  callID: `c-${Math.random()}`,
  files: [],
  changes,
});
/** A call's result, naming no file. */
const resultOf = (tool: string, callID: string) => ({ tool, callID, readCall: () => ({ files: [], changes: [] }) });
const write = (path: string, content: string): ProposedChange => ({
  kind: "write",
  path: join(project.projectDir, path),
  content,
});

describe("a write, compared with the file on disk", () => {
  test("a line already in the file is not added: rewriting a file that holds console.log( elsewhere goes through", async () => {
    await start();
    const verdict = await rulebook.toolAboutToRun(
      "s1",
      call([write("src/old.ts", 'export const a = 2;\nconsole.log("kept");\n')]),
    );
    expect(verdict.refusal).toBeUndefined();
  });

  test("a new line that breaks the rule is refused, with its line number in the new file", async () => {
    await start();
    const verdict = await rulebook.toolAboutToRun(
      "s1",
      call([write("src/old.ts", 'export const a = 1;\nconsole.log("kept");\nconsole.log("new");\n')]),
    );
    expect(verdict.refusal?.text).toContain('in "src/old.ts" line 3: console.log("new");');
    expect(logged.join("\n")).toContain("Refused a write call in session s1: it breaks no-console");
  });

  test("a file outside the rule's globs is not checked", async () => {
    await start();
    expect(
      (await rulebook.toolAboutToRun("s1", call([write("scripts/a.ts", "console.log(1)\n")]))).refusal,
    ).toBeUndefined();
  });

  test("a file that cannot be read lets the write through, and says so in the log", async () => {
    // Rule files read as usual; the project's source file is unreadable.
    const failing = {
      ...nodeRuleFs,
      readFile: (path: string, maxBytes: number, size?: number) =>
        path.endsWith("old.ts")
          ? Promise.reject(Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" }))
          : nodeRuleFs.readFile(path, maxBytes, size),
    };
    await start({}, failing);
    expect(
      (await rulebook.toolAboutToRun("s1", call([write("src/old.ts", "console.log(1)\n")]))).refusal,
    ).toBeUndefined();
    expect(logged.join("\n")).toMatch(
      /warn: Could not check a write call of .*src\/old.ts in session s1 .*EACCES.*let through/,
    );
  });
});

describe("an edit, applied to the file on disk and judged by its result", () => {
  const info = 'export const a = 1;\nconsole.info("x");\n';
  const toolCall = (tool: string, args: unknown) => call(proposedChanges(tool, args), tool);

  test("turning console.info( into console.log( inside a line is refused, at the line it lands on", async () => {
    await writeFile(join(project.projectDir, "src/info.ts"), info);
    await start();
    const verdict = await rulebook.toolAboutToRun(
      "s1",
      toolCall("edit", { filePath: join(project.projectDir, "src/info.ts"), oldString: "info", newString: "log" }),
    );
    expect(verdict.refusal?.text).toContain('in "src/info.ts" line 2: console.log("x");');
  });

  test("an edit elsewhere in a file that holds console.log( goes through", async () => {
    await start();
    const verdict = await rulebook.toolAboutToRun(
      "s1",
      toolCall("edit", { path: "src/old.ts", oldString: "a = 1", newString: "a = 2" }),
    );
    expect(verdict.refusal).toBeUndefined();
  });

  test("a patch's update chunk completing console.log( is refused, at the file's line (OpenCode's envelope)", async () => {
    await writeFile(join(project.projectDir, "src/info.ts"), info);
    await start();
    const patchText = [
      "*** Begin Patch",
      "*** Update File: src/info.ts",
      "@@",
      '-console.info("x");',
      '+console.log("x");',
      "*** End Patch",
    ].join("\n");
    expect((await rulebook.toolAboutToRun("s1", toolCall("apply_patch", { patchText }))).refusal?.text).toContain(
      'in "src/info.ts" line 2: console.log("x");',
    );
  });

  test("a unified diff likewise: the line is the file's, whatever the hunk header says", async () => {
    await writeFile(join(project.projectDir, "src/info.ts"), info);
    await start();
    const patchText = [
      "--- a/src/info.ts",
      "+++ b/src/info.ts",
      "@@ -7,2 +7,2 @@",
      " export const a = 1;",
      '-console.info("x");',
      '+console.log("x");',
    ].join("\n");
    expect((await rulebook.toolAboutToRun("s1", toolCall("patch", { patchText }))).refusal?.text).toContain(
      'in "src/info.ts" line 2: console.log("x");',
    );
  });

  test("a file that cannot be read: the edit is judged alone, and the log says so", async () => {
    const failing = {
      ...nodeRuleFs,
      readFile: (path: string, maxBytes: number, size?: number) =>
        path.endsWith("old.ts")
          ? Promise.reject(Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" }))
          : nodeRuleFs.readFile(path, maxBytes, size),
    };
    await start({}, failing);
    const edit = {
      filePath: join(project.projectDir, "src/old.ts"),
      oldString: "a = 1;",
      newString: "a = 1;\nconsole.log(a);",
    };
    expect((await rulebook.toolAboutToRun("s1", toolCall("edit", edit))).refusal?.text).toContain(
      'in "src/old.ts": console.log(a);',
    );
    expect(logged.join("\n")).toMatch(
      /warn: Could not check a edit call of .*src\/old.ts in session s1 .*EACCES.*judged by the edit alone/,
    );
  });
});

test("a file on disk that never answers: the check gives up at its bound, lets the write through, and says so in the log", async () => {
  const hung = {
    ...nodeRuleFs,
    readFile: (path: string, maxBytes: number, size?: number) =>
      path.endsWith("old.ts") ? new Promise<never>(() => {}) : nodeRuleFs.readFile(path, maxBytes, size),
  };
  await start({}, hung, true, 50);
  expect(
    (await rulebook.toolAboutToRun("s1", call([write("src/old.ts", "console.log(1)\n")]))).refusal,
  ).toBeUndefined();
  expect(logged.join("\n")).toMatch(
    /warn: Could not check a write call of .*src\/old.ts in session s1 against the rules that forbid \(the file on disk could not be read within 50 ms\); it was let through/,
  );
});

describe("the user's enforce option", () => {
  test('"warn": the call runs, and its result carries the rule', async () => {
    await start({ enforce: "warn" });
    const changes = [write("src/new.ts", "console.log(1)\n")];
    const about = call(changes);
    expect((await rulebook.toolAboutToRun("s1", about)).refusal).toBeUndefined();
    const result = await rulebook.toolResult("s1", resultOf("write", about.callID));
    expect(result?.text).toContain('Rule "no-console" forbids');
  });

  test('"off": nothing is checked', async () => {
    await start({ enforce: "off" });
    expect(
      (await rulebook.toolAboutToRun("s1", call([write("src/new.ts", "console.log(1)\n")]))).refusal,
    ).toBeUndefined();
  });

  test("a wrong value is reported and the default (block) used", () => {
    expect(parseOptions({ enforce: "never" }, {})).toMatchObject({
      options: { enforce: "block" },
      errors: [expect.stringContaining('option "enforce" should be "block", "warn" or "off"')],
    });
  });
});

test("a subagent's session is checked even when subagents get no rules", async () => {
  await start({}, nodeRuleFs, false);
  await rulebook.sessionSeen({ id: "child", parentID: "parent", hasHistory: false });
  expect(
    (await rulebook.toolAboutToRun("child", call([write("src/new.ts", "console.log(1)\n")]))).refusal?.text,
  ).toContain("no-console");
});

test("a warn rule's command runs; the result of that call, and only that one, carries it", async () => {
  await start();
  const about = call([{ kind: "command", command: "git push --force" }], "bash");
  expect((await rulebook.toolAboutToRun("s1", about)).refusal).toBeUndefined();
  expect(await rulebook.toolResult("s1", resultOf("bash", "another"))).toBeUndefined();
  expect((await rulebook.toolResult("s1", resultOf("bash", about.callID)))?.text).toContain(
    'Rule "no-force" forbids `/--force\\b/` in the command: git push --force',
  );
});

test("rule files are never checked: a rule that forbids console.log( does not stop the model writing that rule, or another like it", async () => {
  const everywhere = await project.writeRule(
    "global",
    "no-console-anywhere.md",
    '---\nalwaysApply: false\nforbid: "console.log("\n---\nNever log to the console.\n',
  );
  await start();
  const ruleText = '---\nforbid: "console.log("\n---\nNo console.log( in this project.\n';
  // Without globs the rule applies to every file: a README is refused ...
  expect(
    (await rulebook.toolAboutToRun("s1", call([write("README.md", "Call console.log(x).\n")]))).refusal?.text,
  ).toContain("no-console-anywhere");
  // ... a new rule in the project's rules folder, and the rule's own file, are not.
  expect(
    (await rulebook.toolAboutToRun("s1", call([write(".opencode/rules/more.md", ruleText)]))).refusal,
  ).toBeUndefined();
  const edit: ProposedChange = {
    kind: "edit",
    path: everywhere,
    replacements: [{ oldText: "Never", newText: "Not even console.log(1). Never" }],
    added: [{ text: "Not even console.log(1). Never log to the console." }],
  };
  expect((await rulebook.toolAboutToRun("s1", call([edit], "edit"))).refusal).toBeUndefined();
});

describe("one budget per trust", () => {
  const heavy = Array.from({ length: 50 }, (_, i) => `  - "/(a|b|c|d)*a(a|b|c|d){${150 + i}}x${i}/"`).join("\n");
  // The forbidden line first: the user's rules find it in their first steps, however busy the machine; the repository's patterns cannot finish 8 MB.
  const longLines = `console.log("x")\n${Array.from({ length: 2000 }, (_, i) => `${"abcd".repeat(1000)}${i}`).join("\n")}\n`;

  test("a repository's heavy patterns cannot use up the user's rule's time: the write is refused by it, and the log names the rule not reached", async () => {
    await project.writeRule(
      "global",
      "no-log.md",
      '---\nalwaysApply: false\nforbid: "console.log("\n---\nThe user\'s own: no logging.\n',
    );
    await project.writeRule("project", "heavy.md", `---\nalwaysApply: false\nforbid:\n${heavy}\n---\nHeavy.\n`);
    await start({}, nodeRuleFs, true, 200);
    const verdict = await rulebook.toolAboutToRun("s1", call([write("scripts/data.txt", longLines)]));
    expect(verdict.refusal?.text).toContain('Rule "no-log" forbids `console.log(` in "scripts/data.txt" line 1');
    expect(logged.join("\n")).toMatch(
      /warn: Could not check all of a write call in session s1 .* within 200 ms; what was not checked was let through\. Not reached: .*heavy \(\.opencode\/rules\/heavy\.md\)/,
    );
  });
});

describe("a user rule shadowed by a repository rule of its name", () => {
  test("still refuses, and the refusal says the repository's rule shadows its text only", async () => {
    await project.writeRule(
      "global",
      "no-force.md",
      "---\nalwaysApply: false\nforbidCommands: /--force\\b/\n---\nThe user's own: never force.\n",
    );
    await start();
    const verdict = await rulebook.toolAboutToRun(
      "s1",
      call([{ kind: "command", command: "git push origin main --force" }], "bash"),
    );
    // The project's no-force.md (a warn rule) wins the name; the user's block rule still holds.
    expect(verdict.refusal?.text).toContain("shadows its text, not what it forbids");
    expect(verdict.refusal?.text).toContain("The user's own: never force.");
    expect(logged.join("\n")).toContain(
      "is shadowed by .opencode/rules/no-force.md, a less trusted rule of the same name",
    );
  });
});

describe("a call weakening a rule through a path that leads to its file", () => {
  test("a write of a rule file through a symlinked folder is told to the model and the log, as a write through its own path is", async () => {
    await symlink(join(project.projectDir, ".opencode/rules"), join(project.projectDir, "rules-link"));
    await start();
    const about = call([write("rules-link/no-console.md", "---\nenabled: false\nforbid: console.log(\n---\nOff.\n")]);
    expect((await rulebook.toolAboutToRun("s1", about)).refusal).toBeUndefined();
    const result = await rulebook.toolResult("s1", resultOf("write", about.callID));
    expect(result?.text).toContain('- Rule "no-console" (.opencode/rules/no-console.md): switched off');
    expect(logged.join("\n")).toContain("weakened rules that forbid");
  });
});
