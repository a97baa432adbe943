/**
 * The user's `enforce` option never weakens a managed rule (docs/team-packs.md,
 * "The managed tier"): `warn` turns a repository rule's block into a warning and
 * leaves a managed rule's a block (src/enforce/violations.ts); `off` stops
 * the engine checking the repository's rules, never the managed tier's
 * (src/engine/check-call.ts).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { nodeRuleFs } from "../../src/discover/fs.js";
import type { SessionPort } from "../../src/engine/contract.js";
import { type RunningRulebook, startRulebook } from "../../src/engine/rulebook.js";
import type { ProposedChange } from "../../src/enforce/proposed.js";
import { type CheckBudget, type CheckedChange, checkedViolations, violationsIn } from "../../src/enforce/violations.js";
import { createLogger } from "../../src/log.js";
import { parseOptions } from "../../src/options.js";
import { type ForbidPattern, readForbidPattern } from "../../src/pattern/forbid-pattern.js";
import type { Rule } from "../../src/rule/rule.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";
import { makeRule } from "../support/rules.js";
import { writeTree } from "../support/temp-folder.js";

const pattern = (written: string): ForbidPattern => {
  const read = readForbidPattern(written);
  if ("problem" in read) throw new Error(read.problem);
  return read.pattern;
};

const blocking = (name: string, over: Partial<Rule>, forbid: string): Rule =>
  makeRule({ name, ...over, enforce: { mode: "block", forbid: [pattern(forbid)], forbidCommands: [] } });

const managedKeys = blocking(
  "secrets",
  {
    trust: "managed",
    scope: "global",
    source: "managed",
    path: "/etc/opencode/rules/secrets.md",
    displayPath: "/etc/opencode/rules/secrets.md",
  },
  "AKIA",
);
const repoConsole = blocking("no-console", { trust: "repository" }, "console.log(");

const change: CheckedChange = {
  kind: "file",
  file: "src/config.ts",
  added: [
    { text: 'export const key = "AKIAIOSFODNN7EXAMPLE";', line: 1 },
    { text: 'console.log("x");', line: 2 },
  ],
};
const modes = (violations: { rule: Rule; mode: string }[]) =>
  violations.map(({ rule, mode }) => [rule.name, mode]).sort();

const budget = (): CheckBudget => ({
  now: () => performance.now(),
  deadline: performance.now() + 5000,
  sliceMs: 1000,
  pause: async () => {},
});

describe('the user\'s enforce option "warn"', () => {
  test("a repository rule's block becomes a warning; a managed rule's stays a block (the engine's check)", async () => {
    const check = await checkedViolations(
      { changes: [change], forbidding: { rules: [repoConsole, managedKeys] }, as: {}, option: "warn" },
      budget(),
    );
    expect(check.complete).toBe(true);
    expect(modes(check.violations)).toEqual([
      ["no-console", "warn"],
      ["secrets", "block"],
    ]);
  });

  test("the same for `verify`, which holds no session", () => {
    const check = violationsIn([change], [repoConsole, managedKeys], {}, "warn", {
      now: () => performance.now(),
      deadline: Number.POSITIVE_INFINITY,
    });
    expect(modes(check.violations)).toEqual([
      ["no-console", "warn"],
      ["secrets", "block"],
    ]);
  });

  test('with "block", both block; a managed rule that says `enforce: warn` itself warns', () => {
    const managedWarn = makeRule({
      ...managedKeys,
      enforce: { ...(managedKeys.enforce as NonNullable<Rule["enforce"]>), mode: "warn" },
    });
    expect(
      modes(
        violationsIn([change], [repoConsole, managedKeys], {}, "block", {
          now: () => 0,
          deadline: Number.POSITIVE_INFINITY,
        }).violations,
      ),
    ).toEqual([
      ["no-console", "block"],
      ["secrets", "block"],
    ]);
    expect(
      modes(
        violationsIn([change], [managedWarn], {}, "warn", { now: () => 0, deadline: Number.POSITIVE_INFINITY })
          .violations,
      ),
    ).toEqual([["secrets", "warn"]]);
  });
});

describe('the engine with the user\'s enforce option "off"', () => {
  const port: SessionPort = {
    sendRules: async () => ({ created: 1 }),
    readWindow: async () => ({ rules: [], choice: {}, movedOn: false }),
  };
  let project: TempProject;
  let rulebook: RunningRulebook | undefined;
  let managedDir: string;

  beforeEach(async () => {
    project = await tempProject();
    managedDir = join(project.root, "managed", "rules");
    await writeTree(managedDir, { "secrets.md": "---\nforbid: AKIA\n---\nNever commit cloud keys.\n" });
    await project.writeRule(
      "project",
      "no-console.md",
      '---\nalwaysApply: false\nglobs: src/**/*.ts\nforbid: "console.log("\n---\nLog through src/log.ts.\n',
    );
    await mkdir(join(project.projectDir, "src"), { recursive: true });
  });
  afterEach(async () => {
    rulebook?.dispose();
    rulebook = undefined;
    await project.cleanup();
  });

  async function start(options: Record<string, unknown>) {
    rulebook = await startRulebook({
      port,
      directory: project.projectDir,
      worktree: project.projectDir,
      env: { ...process.env, OPENCODE_RULEBOOK_MANAGED_DIR: managedDir },
      home: project.home,
      fs: nodeRuleFs,
      options: parseOptions(options, {}).options,
      log: createLogger(async () => {}, false),
      creationGraceMs: 0,
    });
    return rulebook;
  }

  const write = (path: string, content: string): ProposedChange => ({
    kind: "write",
    path: join(project.projectDir, path),
    content,
  });
  const call = (changes: ProposedChange[]) => ({ tool: "write", callID: `c-${Math.random()}`, files: [], changes });

  test("a managed rule's forbid still refuses the call", async () => {
    const engine = await start({ enforce: "off" });
    const verdict = await engine.toolAboutToRun(
      "s1",
      call([write("src/config.ts", 'export const key = "AKIAIOSFODNN7EXAMPLE";\n')]),
    );
    expect(verdict.refusal?.text).toContain('Rule "secrets" forbids `AKIA`');
  });

  test("a repository rule's forbid does not: the call runs, and its result carries nothing", async () => {
    const engine = await start({ enforce: "off" });
    const about = call([write("src/log.ts", 'console.log("x");\n')]);
    expect((await engine.toolAboutToRun("s1", about)).refusal).toBeUndefined();
    expect(
      await engine.toolResult("s1", {
        tool: "write",
        callID: about.callID,
        readCall: () => ({ files: [], changes: [] }),
      }),
    ).toBeUndefined();
  });

  test("a call breaking both is refused for the managed rule alone", async () => {
    const engine = await start({ enforce: "off" });
    const verdict = await engine.toolAboutToRun(
      "s1",
      call([write("src/both.ts", 'const key = "AKIAIOSFODNN7EXAMPLE";\nconsole.log(key);\n')]),
    );
    expect(verdict.refusal?.text).toContain('Rule "secrets" forbids `AKIA`');
    expect(verdict.refusal?.text).not.toContain("no-console");
  });

  test('with "block" (the default) the repository rule refuses too: the managed folder is not all that is checked', async () => {
    const engine = await start({});
    const verdict = await engine.toolAboutToRun("s1", call([write("src/log.ts", 'console.log("x");\n')]));
    expect(verdict.refusal?.text).toContain('Rule "no-console" forbids `console.log(`');
  });
});
