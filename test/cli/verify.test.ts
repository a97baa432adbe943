/** `verify`: the project's files against what its rules forbid, whole, as a user runs it in CI or a hook. */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, expect, test } from "vitest";
import { ANSI, sandbox, type Sandbox, useSandbox } from "../support/cli.js";
import { FORBIDDING_RULES } from "../support/verify-fixtures.js";

const current = useSandbox((box) => box.write(FORBIDDING_RULES));
let box: Sandbox;
beforeEach(() => {
  box = current();
});

test("every line that breaks a rule, as file:line, rule, pattern and line; exit 1 for a block rule", async () => {
  await box.write({
    "src/app.ts": 'export function main() {\n  console.log("hi");\n  const x: any = 1;\n  console.log(x);\n}\n',
    "src/ok.ts": "export const ok = 1;\n",
    "docs/guide.md": "Call console.log( to debug.\n",
  });
  const { stdout, stderr, code } = box.run(["verify"]);
  expect(code).toBe(1);
  expect(stderr).toBe("");
  expect(stdout).not.toMatch(ANSI);
  expect(stdout).toBe(
    [
      'error   src/app.ts:2: rule "no-console" forbids `console.log(`: console.log("hi");',
      'warning src/app.ts:3: rule "no-any" forbids `/:\\s*any\\b/`: const x: any = 1;',
      'error   src/app.ts:4: rule "no-console" forbids `console.log(`: console.log(x);',
      "",
      "2 errors, 1 warning in 1 of 3 files checked",
      "",
    ].join("\n"),
  );
});

test("a clean project: exit 0 and how many files were checked", async () => {
  await box.write({ "src/app.ts": "export const a = 1;\n", "src/b.ts": "export const b: number = 2;\n" });
  const { stdout, code } = box.run(["verify"]);
  expect(code).toBe(0);
  expect(stdout).toBe("No rule broken in 2 files.\n");
});

test("warn rules only: printed, exit 0", async () => {
  await box.write({ "src/app.ts": "let x: any;\n" });
  const { stdout, code } = box.run(["verify"]);
  expect(code).toBe(0);
  expect(stdout).toBe(
    'warning src/app.ts:1: rule "no-any" forbids `/:\\s*any\\b/`: let x: any;\n\n0 errors, 1 warning in 1 of 1 file checked\n',
  );
});

test("--json: the findings, what was skipped and what was not checked", async () => {
  await box.write({ "src/app.ts": "\tconsole.log(1)\u0007\n" });
  const { stdout, code } = box.run(["verify", "--json"]);
  expect(code).toBe(1);
  expect(JSON.parse(stdout)).toEqual({
    ok: false,
    errors: 1,
    warnings: 0,
    filesChecked: 1,
    compared: null,
    findings: [
      {
        file: "src/app.ts",
        line: 1,
        rule: "no-console",
        ruleFile: ".opencode/rules/no-console.md",
        pattern: "console.log(",
        mode: "block",
        text: "?console.log(1)?",
      },
    ],
    skipped: [],
    notChecked: [],
    notes: [],
  });
});

test("named files and folders narrow the check; a path that does not exist or lies outside the project is wrong usage (exit 2)", async () => {
  await box.write({
    "src/app.ts": "console.log(1);\n",
    "src/ok/fine.ts": "export {};\n",
    "lib/x.ts": "console.log(2);\n",
  });
  expect(box.run(["verify", "src/ok"])).toMatchObject({ code: 0, stdout: "No rule broken in 1 file.\n" });
  const named = box.run(["verify", "src/app.ts", "src/ok"]);
  expect(named.code).toBe(1);
  expect(named.stdout).toContain("1 error, 0 warnings in 1 of 2 files checked");
  expect(box.run(["verify", "lib/x.ts"]).stdout).toBe("No rule broken in 1 file.\n");
  // From a sub-folder, paths are the shell's: relative to where the command runs.
  expect(box.run(["verify", "app.ts"], { cwd: join(box.project, "src") }).code).toBe(1);

  const missing = box.run(["verify", "src/nope.ts"]);
  expect(missing).toMatchObject({ code: 2, stdout: "" });
  expect(missing.stderr).toBe("opencode-rulebook: src/nope.ts does not exist\n");
  const outside = box.run(["verify", "../elsewhere.ts"]);
  expect(outside).toMatchObject({ code: 2, stdout: "" });
  expect(outside.stderr).toContain("../elsewhere.ts is outside the repository");
});

test("a rule for some agents or models is checked only with --agent or --model, as explain has it", async () => {
  await box.write({
    ".opencode/rules/plan-only.md": "---\nagents: [plan]\nforbid: [TODO]\n---\nNo TODO while planning.\n",
    "src/app.ts": "// TODO later\n",
  });
  const without = box.run(["verify"]);
  expect(without.code).toBe(0);
  expect(without.stdout).toBe(
    "note    not checked, for other agents or models (see --agent, --model): plan-only\n\nNo rule broken in 1 file.\n",
  );
  const asPlan = box.run(["verify", "--agent", "plan"]);
  expect(asPlan.code).toBe(1);
  expect(asPlan.stdout).toContain('error   src/app.ts:1: rule "plan-only" forbids `TODO`: // TODO later\n');
  expect(box.run(["verify", "--agent", "build"]).code).toBe(0);
});

test("binary files are counted, files over 8 MiB named, neither read as text", async () => {
  await box.write({
    "src/huge.ts": `${"// filler\n".repeat(900_000)}console.log(1);\n`,
    "src/app.ts": "export {};\n",
  });
  await writeFile(join(box.project, "src", "logo.ts"), Buffer.from("console.log(\0", "latin1"));
  const { stdout, code } = box.run(["verify"]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/^note {4}src\/huge\.ts: not checked, too large \(9000016 bytes\)$/m);
  expect(stdout).toContain("note    1 binary file not checked\n");
  expect(stdout).toMatch(/No rule broken in 1 file\.\n$/);
});

test("the plugin's enforce option does not change what verify says: it is a note", async () => {
  await box.write({
    "src/app.ts": "console.log(1);\n",
    "opencode.json": JSON.stringify({ plugin: [["opencode-rulebook", { enforce: "off" }]] }),
  });
  const { stdout, code } = box.run(["verify"]);
  expect(code).toBe(1);
  expect(stdout).toContain(
    'note    the plugin\'s "enforce" option is "off" (opencode.json): sessions check nothing; verify holds each rule to its own mode\n',
  );
});

test("no rule forbids anything: nothing to check, exit 0", async () => {
  const empty = await sandbox();
  try {
    await empty.write({ ".opencode/rules/style.md": "Be terse.\n", "src/app.ts": "console.log(1);\n" });
    expect(empty.run(["verify"])).toMatchObject({
      code: 0,
      stdout: "No rule forbids text in files: nothing to check.\n",
    });
  } finally {
    await empty.cleanup();
  }
});

test("outside a git repository, whole files are found by the project walk; --diff says it needs git (exit 2)", async () => {
  await rm(join(box.project, ".git"), { recursive: true });
  await box.write({ "src/app.ts": "console.log(1);\n" });
  expect(box.run(["verify"]).code).toBe(1);
  const diff = box.run(["verify", "--diff"]);
  expect(diff.code).toBe(2);
  expect(diff.stdout).toBe("");
  expect(diff.stderr).toBe(
    "opencode-rulebook: . is not in a git repository: --diff and --staged read the changes git sees; without them, verify checks whole files\n",
  );
});
