/** `check`: exit 1 on errors, 0 with warnings only; readable and --json output. */
import { realpath, symlink } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, expect, test } from "vitest";
import { projectTree } from "../support/cli-fixtures.js";
import { ANSI, type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox((box) => box.write(projectTree()));
let box: Sandbox;
beforeEach(() => {
  box = current();
});

test("a clean project passes: exit 0, a green summary (without colours off a terminal); where the plugin's log is, on stderr", () => {
  const { stdout, stderr, code } = box.run(["check"]);
  expect(code).toBe(0);
  expect(stdout).toBe("5 rule files checked, 5 rules in effect: 0 errors, 0 warnings\n");
  const logDir = join(box.home, ".local", "share", "opencode", "log");
  expect(stderr).toBe(
    `The plugin's log: ${join(logDir, "opencode-rulebook.log")} (OpenCode 2); OpenCode 1 keeps it in its own log, ${logDir} (service opencode-rulebook)\n`,
  );
  const data = join(box.home, "data");
  expect(box.run(["check"], { env: { XDG_DATA_HOME: data } }).stderr).toContain(
    `The plugin's log: ${join(data, "opencode", "log", "opencode-rulebook.log")} (OpenCode 2)`,
  );
  expect(JSON.parse(box.run(["check", "--json"]).stdout).logFile).toBe(join(logDir, "opencode-rulebook.log"));
});

test("a broken rule file is an error: exit 1, with its path and line", async () => {
  await box.write({
    ".opencode/rules/broken.md": "---\nglobs: [\n---\nBroken.\n",
    ".opencode/rules/bad-type.md": "---\nalwaysApply: maybe\n---\nText.\n",
  });
  const { stdout, code } = box.run(["check"]);
  expect(code).toBe(1);
  expect(stdout).toMatch(
    /^error {3}\.opencode\/rules\/broken\.md:\d+: front matter is not valid YAML .*rule "broken" skipped$/m,
  );
  expect(stdout).toMatch(
    /^error {3}\.opencode\/rules\/bad-type\.md:2: front matter key "alwaysApply" should be true or false, found string "maybe"; rule "bad-type" skipped$/m,
  );
  expect(stdout).toMatch(/7 rule files checked, 5 rules in effect: 2 errors, 0 warnings\n$/);

  const json = JSON.parse(box.run(["check", "--json"]).stdout);
  expect(json).toMatchObject({ ok: false, errors: 2, warnings: 0, filesChecked: 7, rules: 5 });
  expect(json.problems).toContainEqual(
    expect.objectContaining({ severity: "error", displayPath: ".opencode/rules/broken.md" }),
  );
  expect(box.run(["check", "--json"]).code).toBe(1);
});

test("warnings only: exit 0 — a glob that matches nothing, unknown keys, bad priority, duplicates, dead links, options", async () => {
  await box.write({
    "node_modules/pkg/tool.py": "print()\n",
    ".opencode/rules/python.md": "---\nglobs: ['**/*.py', 'src/**']\n---\nUse type hints.\n",
    ".opencode/rules/typo.md":
      "---\nglob: src/**\npriority: 500\n---\nSee [the guide](docs/guide.md) and [ok](../../src/app.ts) and [web](https://example.com).\n",
    ".opencode/rules/copy.md": "Run the tests with npm test before saying you are done.\n",
    "opencode.json": JSON.stringify({ plugin: [["opencode-rulebook", { colour: true }]] }),
  });
  const { stdout, code } = box.run(["check"]);
  expect(code).toBe(0);
  expect(stdout).toContain('warning .opencode/rules/python.md: glob "**/*.py" matches no file in the project\n');
  expect(stdout).not.toContain('glob "src/**" matches no file');
  // Said once, by discovery or by check.
  expect(
    stdout.match(/^warning \.opencode\/rules\/typo\.md: front matter key "glob" (not understood|is not used)/gm),
  ).toHaveLength(1);
  expect(stdout).toMatch(
    /^warning \.opencode\/rules\/typo\.md:3: front matter key "priority" should be a whole number from 1 to 100, found number 500; default 50 used$/m,
  );
  expect(stdout).toContain("warning .opencode/rules/typo.md: links to docs/guide.md, which does not exist\n");
  expect(stdout).not.toContain("app.ts, which does not exist");
  expect(stdout).toMatch(/^warning \.opencode\/rules\/(copy|testing)\.md: same text as rule "(testing|copy)"/m);
  expect(stdout).toMatch(/^warning opencode\.json: plugin options: unknown option "colour" ignored/m);
  expect(stdout).toMatch(/0 errors, 6 warnings\n$/);

  const json = JSON.parse(box.run(["check", "--json"]).stdout);
  expect(json).toMatchObject({ ok: true, errors: 0, warnings: 6 });
  expect(json.problems).toContainEqual({
    severity: "warning",
    path: `${box.project}/.opencode/rules/python.md`,
    displayPath: ".opencode/rules/python.md",
    line: null,
    rule: "python",
    message: 'glob "**/*.py" matches no file in the project',
  });
});

test("rules over the message budget are warnings", async () => {
  await box.write({
    "opencode.json": JSON.stringify({
      plugin: ["./node_modules/opencode-rulebook/dist/index.js", ["opencode-rulebook", { maxMessageBytes: 900 }]],
    }),
    ".opencode/rules/huge.md": `---\npriority: 1\n---\n${"x".repeat(1000)}\n`,
  });
  const { stdout, code } = box.run(["check"]);
  expect(code).toBe(0);
  expect(stdout).toMatch(
    /^warning \.opencode\/rules\/huge\.md: the rule is \d+ bytes as a message, over the 900-byte message budget by itself/m,
  );
  expect(stdout).toMatch(
    /^warning opencode\.json: the always-on rules exceed the 900-byte message budget: huge left out/m,
  );
});

test("colours only when asked for, never with NO_COLOR", async () => {
  await box.write({ ".opencode/rules/broken.md": "---\nglobs: [\n---\nBroken.\n" });
  expect(box.run(["check"]).stdout).not.toMatch(ANSI);
  expect(box.run(["check"], { env: { FORCE_COLOR: "1" } }).stdout).toMatch(ANSI);
  expect(box.run(["check"], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } }).stdout).not.toMatch(ANSI);
});

test("an untrusted repository: a symlink out of it is an error naming link and target; a glob that cannot be used does not crash check, explain or render", async () => {
  await box.write({
    [join(box.root, "outside", "secret.md")]: "SECRET-TOKEN\n",
    ".opencode/rules/empty-glob.md": "---\nglobs: ./\nkeywords: [deploy]\n---\nDeploy rule.\n",
  });
  await symlink(join(box.root, "outside", "secret.md"), join(box.projectRules, "leak.md"));
  const check = box.run(["check"]);
  expect(check.code).toBe(1);
  expect(check.stdout).toContain(
    `error   .opencode/rules/leak.md: leads through a symlink to ${await realpath(join(box.root, "outside", "secret.md"))}, outside the repository (${await realpath(box.project)}); a repository's rule files are read only from inside it, so this file was skipped\n`,
  );
  expect(check.stdout).toMatch(
    /^warning \.opencode\/rules\/empty-glob\.md:2: glob "\.\/" cannot be used \(.*\); this glob is ignored/m,
  );
  for (const args of [
    ["explain", "src/app.ts", "--prompt", "deploy it"],
    ["render", "--files", "src/app.ts", "--prompt", "deploy it"],
    ["list"],
  ]) {
    const run = box.run(args);
    expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
    expect(run.stdout).not.toContain("SECRET-TOKEN");
  }
  expect(box.run(["explain", "--prompt", "deploy it"]).stdout).toMatch(/empty-glob/);
});
