/** `check` on what rules forbid: a pattern that cannot be used is an error at its own line; a key another tool's rule cannot hold, a warning at the key's line. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, expect, test } from "vitest";
import { type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox((box) => box.write({ "src/app.ts": "export {};\n" }));
let box: Sandbox;
beforeEach(() => {
  box = current();
});

test("an unusable pattern, too many, too long, a bad value: errors naming file:line (exit 1); the rule still loads", async () => {
  const many = Array.from({ length: 51 }, (_, i) => `  - "p${i}"\n`).join("");
  await box.write({
    ".opencode/rules/bad.md":
      '---\nglobs: src/**\nforbid:\n  - "fine("\n  - /(?=x)y/\n  - /a(b/\nforbidCommands: 12\nenforce: stop\n---\nText.\n',
    ".opencode/rules/many.md": `---\nforbid:\n${many}---\nMany.\n`,
    ".opencode/rules/long.md": `---\nforbid: "${"x".repeat(501)}"\n---\nLong.\n`,
  });
  const { stdout, code } = box.run(["check"]);
  expect(code).toBe(1);
  expect(stdout).toMatch(
    /^error {3}\.opencode\/rules\/bad\.md:5: forbidden pattern "\/\(\?=x\)y\/" in "forbid" uses a lookahead .*; this pattern was ignored$/m,
  );
  expect(stdout).toMatch(
    /^error {3}\.opencode\/rules\/bad\.md:6: forbidden pattern "\/a\(b\/" in "forbid" is not a valid regular expression .*; this pattern was ignored$/m,
  );
  expect(stdout).toMatch(
    /^error {3}\.opencode\/rules\/bad\.md:7: front matter key "forbidCommands" should be a pattern or a YAML list of patterns, found number 12/m,
  );
  expect(stdout).toMatch(
    /^warning \.opencode\/rules\/bad\.md:8: front matter key "enforce" should be "block" or "warn", found string "stop"; "block" used$/m,
  );
  expect(stdout).toMatch(
    /^error {3}\.opencode\/rules\/long\.md:2: forbidden pattern "x+…" in "forbid" is 501 characters long, more than 500; this pattern was ignored$/m,
  );
  expect(stdout).toMatch(
    /^error {3}\.opencode\/rules\/many\.md:2: front matter key "forbid" lists 51 patterns, more than 50; the first 50 are used/m,
  );
  expect(stdout).toMatch(/3 rule files checked, 3 rules in effect: 5 errors, 1 warning\n$/);

  // What was usable holds: `fine(` in bad.md, the first 50 of many.md.
  const rules = JSON.parse(box.run(["list", "--json"]).stdout).rules as Array<{
    name: string;
    enforce: { forbid: string[] } | null;
  }>;
  const forbid = Object.fromEntries(rules.map((rule) => [rule.name, rule.enforce?.forbid ?? null]));
  expect(forbid.bad).toEqual(["fine("]);
  expect(forbid.many).toHaveLength(50);
  expect(forbid.long).toBeNull();
});

test("forbid in a Cursor .mdc rule: a warning at the key's line (exit 0), and the rule forbids nothing", async () => {
  await box.write({
    ".cursor/rules/cursor.mdc": "---\nalwaysApply: true\nforbid: [TODO]\nenforce: warn\n---\nCursor rule.\n",
    "src/todo.ts": "// TODO\n",
  });
  const { stdout, code } = box.run(["check"]);
  expect(code).toBe(0);
  expect(stdout).toMatch(
    /^warning \.cursor\/rules\/cursor\.mdc:3: front matter key "forbid" is read only in opencode-rulebook's own rules folders .*in a Cursor rule it is ignored/m,
  );
  expect(stdout).toMatch(
    /^warning \.cursor\/rules\/cursor\.mdc:4: front matter key "enforce" is read only in opencode-rulebook's own rules folders/m,
  );
  const json = JSON.parse(box.run(["check", "--json"]).stdout);
  expect(json.problems).toContainEqual(
    expect.objectContaining({ severity: "warning", displayPath: ".cursor/rules/cursor.mdc", line: 3, rule: null }),
  );
  expect(box.run(["verify"]).stdout).toBe("No rule forbids text in files: nothing to check.\n");
});

test("a repository rule named like the user's forbidding global rule: check says the user's forbid still holds, and verify still checks it", async () => {
  await box.write({ ".opencode/rules/no-log.md": "Log through the logger.\n", "src/bad.ts": 'console.log("x");\n' });
  await mkdir(box.globalRules, { recursive: true });
  await writeFile(
    join(box.globalRules, "no-log.md"),
    '---\nforbid: "console.log("\n---\nThe user\'s own: no console.log.\n',
  );
  const { stdout } = box.run(["check"]);
  expect(stdout).toMatch(
    /^warning ~?.*no-log\.md: shadowed by \.opencode\/rules\/no-log\.md, which has the same name "no-log": this file is not delivered; what it forbids still holds, since \.opencode\/rules\/no-log\.md is less trusted/m,
  );
  const verified = box.run(["verify", "src/bad.ts"]);
  expect(verified.code).toBe(1);
  expect(verified.stdout).toContain('rule "no-log" forbids `console.log(`');
});

test("a rule file whose folder is named with control characters cannot rewrite check's output: they are shown as ?, exact in --json", async () => {
  await box.write({
    ".opencode/rules/a\u001b[2K\nerror   forged/b.md/x.md": "---\nforbid: [TODO]\nbogus: 1\n---\nText.\n",
  });
  const { stdout } = box.run(["check"]);
  expect(stdout).toContain("a?[2K?error   forged/b.md/x.md");
  expect(stdout).not.toMatch(/^error {3}forged/m);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these
  expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  const json = JSON.parse(box.run(["check", "--json"]).stdout) as { problems: Array<{ path: string }> };
  expect(json.problems.some((problem) => problem.path.includes("a\u001b[2K\nerror"))).toBe(true);
});
