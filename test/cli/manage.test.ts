/** `add`, `remove` and `init`: files written and deleted as a user would see. */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { parseRule } from "../../src/rule/parse.js";
import { CLI, cleanEnv, hasScript, type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox();
let box: Sandbox;
beforeEach(() => {
  box = current();
});

const listed = () =>
  JSON.parse(box.run(["list", "--json"]).stdout) as {
    rules: Array<Record<string, unknown>>;
    warnings: unknown[];
    disabled: Array<{ name: string }>;
  };

function parsedFile(path: string) {
  return parseRule({ name: "x", scope: "project", source: "native", path, displayPath: path }, readFileSync(path));
}

describe("add", () => {
  test("writes a rule named after its text, with no front matter when there is nothing to say", () => {
    const { stdout, stderr, code } = box.run(["add", "Use pnpm, never npm or yarn!"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toBe(
      'Created .opencode/rules/use-pnpm-never-npm-or-yarn.md (rule "use-pnpm-never-npm-or-yarn", project): always\n',
    );
    expect(readFileSync(join(box.projectRules, "use-pnpm-never-npm-or-yarn.md"), "utf8")).toBe(
      "Use pnpm, never npm or yarn!\n",
    );
    expect(listed().rules).toEqual([
      expect.objectContaining({ name: "use-pnpm-never-npm-or-yarn", activation: "always", scope: "project" }),
    ]);
  });

  test("--files, --keywords (comma-separated or repeated) and --description become safe YAML front matter", () => {
    const description = 'SQL: "customer" data # not a comment';
    const { stdout, code } = box.run([
      "add",
      "--files",
      "src/**/*.ts,*.sql",
      "--files",
      "{db,api}/**",
      "--keywords",
      "sql,yes",
      "-k",
      "null",
      "--description",
      description,
      "--name",
      "sql",
      "Parameterise every query.",
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      'Created .opencode/rules/sql.md (rule "sql", project): files: src/**/*.ts, *.sql, {db,api}/** or keywords: sql, yes, null\n',
    );
    const parsed = parsedFile(join(box.projectRules, "sql.md"));
    expect(parsed.warnings).toEqual([]);
    expect(parsed.rule).toMatchObject({
      conditions: { files: ["src/**/*.ts", "*.sql", "{db,api}/**"], keywords: ["sql", "yes", "null"] },
      description,
      content: "Parameterise every query.",
    });
    expect(listed().rules[0]).toMatchObject({
      name: "sql",
      globs: ["src/**/*.ts", "*.sql", "{db,api}/**"],
      keywords: ["sql", "yes", "null"],
      description,
    });
  });

  test("--on-request writes alwaysApply: false and needs a description", () => {
    expect(box.run(["add", "--on-request", "Release steps."]).code).toBe(2);
    const { code } = box.run(["add", "--on-request", "-d", "How to release", "-n", "release", "Tag, then publish."]);
    expect(code).toBe(0);
    expect(listed().rules[0]).toMatchObject({ name: "release", activation: "on-request" });
  });

  test("refuses to overwrite: exit 1, the file unchanged", async () => {
    await box.write({ ".opencode/rules/style.md": "Original.\n" });
    const { stdout, stderr, code } = box.run(["add", "--name", "style", "Replacement."]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      'A rule named "style" already exists: .opencode/rules/style.md. Choose another --name, or remove it first.\n',
    );
    expect(readFileSync(join(box.projectRules, "style.md"), "utf8")).toBe("Original.\n");
    await box.write({ ".opencode/rules/cursor.mdc": "Cursor rule.\n" });
    expect(box.run(["add", "--name", "cursor", "Other."]).code).toBe(1);
  });

  test("--global writes to the global rules folder; --name may hold a sub-folder", () => {
    const { stdout, code } = box.run(["add", "--global", "--name", "team/review", "Review your own diff first."]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^Created .*\/xdg\/opencode\/rules\/team\/review\.md \(rule "team\/review", global\): always\n$/,
    );
    expect(readFileSync(join(box.globalRules, "team", "review.md"), "utf8")).toBe("Review your own diff first.\n");
    expect(listed().rules).toEqual([expect.objectContaining({ name: "team/review", scope: "global" })]);
  });

  test("bad names and empty text are usage errors (exit 2)", () => {
    for (const name of ["../escape", ".hidden", "a//b", "sp ace"]) {
      const run = box.run(["add", "--name", name, "Text."]);
      expect(run.code, name).toBe(2);
      expect(run.stderr).toMatch(/^opencode-rulebook: --name/);
    }
    expect(box.run(["add", "  "]).code).toBe(2);
    expect(box.run(["add"]).code).toBe(2);
    expect(existsSync(box.projectRules)).toBe(false);
  });

  test("--files with a glob that cannot be used is refused (exit 1), naming the glob and why; nothing is written", () => {
    const { stdout, stderr, code } = box.run(["add", "--files", "./", "--name", "root", "Root rule."]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      'The rule would not load as written (glob "./" cannot be used (nothing is left once "./" is removed); this glob is ignored; no usable glob is left, so the rule applies only when mentioned); nothing was written.\n',
    );
    expect(existsSync(join(box.projectRules, "root.md"))).toBe(false);
  });

  test("writes into the nearest existing rules folder from --cwd up", async () => {
    await box.write({ "packages/api/.opencode/rules/api.md": "API rule.\n", "packages/web/index.ts": "" });
    expect(box.run(["add", "--cwd", "packages/api", "-n", "near", "Near."]).code).toBe(0);
    expect(existsSync(join(box.project, "packages/api/.opencode/rules/near.md"))).toBe(true);
    expect(box.run(["add", "--cwd", "packages/web", "-n", "root", "Root."]).code).toBe(0);
    expect(existsSync(join(box.projectRules, "root.md"))).toBe(true);
  });
});

describe("remove", () => {
  beforeEach(() => box.write({ ".opencode/rules/style.md": "Be terse.\n" }));

  test("without --yes and not on a terminal, refuses and keeps the file", () => {
    const { stdout, stderr, code } = box.run(["remove", "style"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "Not deleting .opencode/rules/style.md without confirmation: stdin is not a terminal. Run again with --yes to delete it.\n",
    );
    expect(existsSync(join(box.projectRules, "style.md"))).toBe(true);
  });

  test("--yes deletes it", () => {
    const { stdout, code } = box.run(["remove", "style", "--yes"]);
    expect(code).toBe(0);
    expect(stdout).toBe('Deleted .opencode/rules/style.md (rule "style")\n');
    expect(existsSync(join(box.projectRules, "style.md"))).toBe(false);
  });

  test("an unknown name: exit 1, the known names listed", () => {
    const { stderr, code } = box.run(["remove", "nope", "-y"]);
    expect(code).toBe(1);
    expect(stderr).toBe('No rule named "nope". Rules: style\n');
  });

  test("a broken rule file can be removed too; --global picks the global one", async () => {
    await box.write({
      ".opencode/rules/broken.md": "---\nglobs: [\n---\nx\n",
      [join(box.globalRules, "style.md")]: "Global.\n",
    });
    expect(box.run(["remove", "broken", "-y"]).code).toBe(0);
    expect(box.run(["remove", "style", "--global", "-y"]).code).toBe(0);
    expect(existsSync(join(box.globalRules, "style.md"))).toBe(false);
    expect(existsSync(join(box.projectRules, "style.md"))).toBe(true);
  });

  test.skipIf(!hasScript)("on a terminal it asks, and deletes only on yes", () => {
    const onTerminal = (answer: string) =>
      execFileSync(
        "script",
        ["-qec", `"${process.execPath}" "${CLI}" remove style --cwd "${box.project}"`, "/dev/null"],
        {
          input: answer,
          env: cleanEnv(box.home, box.xdg),
          encoding: "utf8",
        },
      );
    let refused: { status?: number; stdout?: string } | undefined;
    try {
      onTerminal("n\n");
    } catch (error) {
      refused = error as { status?: number; stdout?: string };
    }
    expect(refused?.status).toBe(1);
    expect(refused?.stdout).toContain('Delete .opencode/rules/style.md (rule "style")? [y/N]');
    expect(existsSync(join(box.projectRules, "style.md"))).toBe(true);
    expect(onTerminal("y\n")).toContain("Deleted .opencode/rules/style.md");
    expect(existsSync(join(box.projectRules, "style.md"))).toBe(false);
  });
});

describe("init", () => {
  test("creates .opencode/rules/ with a switched-off example and prints how to enable the plugin", () => {
    const { stdout, code } = box.run(["init"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Created .opencode/rules/\n");
    expect(stdout).toContain(
      "Created .opencode/rules/example.md: a commented example, switched off (enabled: false) until you edit it.\n",
    );
    expect(stdout).toContain('"plugin": ["opencode-rulebook"]');
    const example = readFileSync(join(box.projectRules, "example.md"), "utf8");
    expect(example).toMatch(/^---\n# An example rule/);
    const json = listed();
    expect(json.rules).toEqual([]);
    expect(json.warnings).toEqual([]);
    expect(json.disabled.map((file) => file.name)).toEqual(["example"]);
    expect(box.run(["check"]).code).toBe(0);
  });

  test("run again, it keeps the example; with the plugin enabled it says so", async () => {
    box.run(["init"]);
    await box.write({
      ".opencode/rules/example.md": "Edited.\n",
      "opencode.json": JSON.stringify({ plugin: ["opencode-rulebook@0.1.0"] }),
    });
    const { stdout, code } = box.run(["init"]);
    expect(code).toBe(0);
    expect(stdout).toContain(".opencode/rules/ already exists.\n");
    expect(stdout).toContain(".opencode/rules/example.md already exists; left as it is.\n");
    expect(stdout).toContain("The plugin is enabled in opencode.json.\n");
    expect(stdout).not.toContain('"plugin": [');
    expect(readFileSync(join(box.projectRules, "example.md"), "utf8")).toBe("Edited.\n");
  });

  test("from a sub-folder, initialises the project root", async () => {
    await box.write({ "src/app.ts": "" });
    expect(box.run(["init"], { cwd: join(box.project, "src") }).code).toBe(0);
    expect(existsSync(join(box.projectRules, "example.md"))).toBe(true);
  });
});

describe("add: the size limit per rule", () => {
  test("a rule over maxRuleBytes is refused (exit 1, nothing written), naming its size and the limit", async () => {
    const text = "Write small functions. ".repeat(3000).trim();
    const size = Buffer.byteLength(`${text}\n`);
    const { stdout, stderr, code } = box.run(["add", "--name", "huge", text]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `The rule file would be ${size} bytes, over the 65536-byte limit per rule (option "maxRuleBytes"); nothing was written. Shorten the rule or split it into several.\n`,
    );
    expect(existsSync(join(box.projectRules, "huge.md"))).toBe(false);
    expect(listed().rules).toEqual([]);
  });

  test("the limit is the project's maxRuleBytes from opencode.json, front matter included", async () => {
    await box.write({ "opencode.json": JSON.stringify({ plugin: [["opencode-rulebook", { maxRuleBytes: 1024 }]] }) });
    const text = "x".repeat(1000);
    // 1001 bytes alone fit; with front matter the file is over 1024 bytes.
    const refused = box.run([
      "add",
      "--name",
      "scoped",
      "--files",
      "src/**/*.ts",
      "--description",
      "d".repeat(40),
      text,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^The rule file would be \d+ bytes, over the 1024-byte limit per rule \(option "maxRuleBytes"\); nothing was written/,
    );
    expect(Number(/would be (\d+) bytes/.exec(refused.stderr)?.[1])).toBeGreaterThan(1024);
    expect(existsSync(join(box.projectRules, "scoped.md"))).toBe(false);
    const taken = box.run(["add", "--name", "plain", text]);
    expect(taken.code).toBe(0);
    expect(readFileSync(join(box.projectRules, "plain.md"), "utf8")).toBe(`${text}\n`);
    expect(listed().rules).toEqual([expect.objectContaining({ name: "plain" })]);
  });
});
