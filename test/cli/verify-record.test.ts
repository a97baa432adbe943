/**
 * `verify` adds its findings to the record of what the rules did, as a
 * session does, in-process through `run`: each line that breaks a rule, with
 * the rule, pattern, file and line, never the line's text; nothing when the
 * record is off; `stats` then counts them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { runInProcess } from "../support/cli-in-process.js";
import { recordFolder } from "../../src/record/location.js";
import { type TempTree, tempTree } from "../support/temp-folder.js";

let tree: TempTree;
let env: Record<string, string | undefined>;

beforeEach(async () => {
  tree = await tempTree("rulebook-verify-record-", { configApart: true, git: true });
  env = { HOME: tree.home, XDG_CONFIG_HOME: tree.configHome, XDG_STATE_HOME: join(tree.root, "state") };
  await tree.write(tree.projectRules, {
    "no-console.md": '---\nglobs: src/**/*.ts\nforbid:\n  - "console.log("\n---\nLog through src/log.ts.\n',
  });
  await tree.write(tree.project, { "src/a.ts": 'const a = 1;\nconsole.log("SECRET-LINE-7f1");\n' });
});
afterEach(() => tree.cleanup());

const cli = (...args: string[]) => runInProcess(args, { env, home: tree.home, cwd: tree.project });

const recordText = () => {
  const folder = recordFolder(env, tree.home);
  return readdirSync(folder)
    .map((name) => readFileSync(join(folder, name), "utf8"))
    .join("");
};

test("each finding is a line of the record: the rule, its pattern, the file and line, not the line's text", async () => {
  expect((await cli("verify")).code).toBe(1);
  const lines = recordText()
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines).toEqual([
    expect.objectContaining({
      kind: "verify",
      project: tree.project,
      rule: "no-console",
      pattern: "console.log(",
      file: "src/a.ts",
      line: 2,
    }),
  ]);
  expect(recordText()).not.toContain("SECRET-LINE-7f1");
  const stats = JSON.parse((await cli("stats", "--json")).stdout) as { rules: Array<{ rule: string; verify: number }> };
  expect(stats.rules.find((row) => row.rule === "no-console")?.verify).toBe(1);
});

test("with the record off (OPENCODE_RULEBOOK_RECORD=0), verify writes nothing", async () => {
  env.OPENCODE_RULEBOOK_RECORD = "0";
  expect((await cli("verify")).code).toBe(1);
  expect(existsSync(recordFolder(env, tree.home))).toBe(false);
});
