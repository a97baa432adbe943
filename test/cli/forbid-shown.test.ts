/** Rules that forbid, as `list` and `explain` show them: which rules hold, what they forbid, where, and for whom. */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { type Sandbox, useSandbox } from "../support/cli.js";
import { FORBIDDING_RULES } from "../support/verify-fixtures.js";

const current = useSandbox((box) =>
  box.write({
    ...FORBIDDING_RULES,
    ".opencode/rules/no-force-push.md":
      "---\nforbidCommands:\n  - /git\\s+push\\s+(-f|--force)\\b/\n---\nNever force-push.\n",
    ".opencode/rules/plan-todo.md": "---\nagents: [plan]\nforbid: [TODO]\n---\nNo TODO while planning.\n",
    ".opencode/rules/style.md": "Be terse.\n",
    "src/app.ts": "export {};\n",
  }),
);
let box: Sandbox;
beforeEach(() => {
  box = current();
});

describe("list", () => {
  test("marks the rules that forbid with their mode; the others have no mark", () => {
    const { stdout, code } = box.run(["list"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}no-console\s+files: src\/\*\*\/\*\.ts · enforces: block\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}no-any\s+files: src\/\*\*\/\*\.ts · enforces: warn\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}no-force-push\s+always · enforces: block\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}plan-todo\s+always · for agent plan · enforces: block\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}style\s+always\s+\d+ B/m);
    expect(stdout).not.toMatch(/style.*enforces/);
  });

  test("--json: each rule's enforcement, its patterns as written; null for a rule that forbids nothing", () => {
    const json = JSON.parse(box.run(["list", "--json"]).stdout) as { rules: Array<{ name: string; enforce: unknown }> };
    const enforce = Object.fromEntries(json.rules.map((rule) => [rule.name, rule.enforce]));
    expect(enforce).toEqual({
      "no-any": { mode: "warn", forbid: ["/:\\s*any\\b/"], forbidCommands: [] },
      "no-console": { mode: "block", forbid: ["console.log("], forbidCommands: [] },
      "no-force-push": { mode: "block", forbid: [], forbidCommands: ["/git\\s+push\\s+(-f|--force)\\b/"] },
      "plan-todo": { mode: "block", forbid: ["TODO"], forbidCommands: [] },
      style: null,
    });
  });
});

describe("explain", () => {
  test("for the files given: what each rule forbids and in which of them, commands whatever the files; a rule for another agent says why not", () => {
    const { stdout, code } = box.run(["explain", "src/app.ts", "README.md"]);
    expect(code).toBe(0);
    const section = stdout.slice(stdout.indexOf("Rules that forbid (4)\n"), stdout.indexOf("\nMessage:"));
    expect(section.split("\n")).toEqual([
      "Rules that forbid (4)",
      "  no-any         warn   `/:\\s*any\\b/` in src/app.ts",
      "  no-console     block  `console.log(` in src/app.ts",
      "  no-force-push  block  commands `/git\\s+push\\s+(-f|--force)\\b/`",
      "  plan-todo      block  `TODO` in src/app.ts, README.md; not here: for agent plan only; the session's agent is not known yet",
      "",
    ]);
  });

  test("a file no glob matches, and --agent bringing a scoped rule in", () => {
    const { stdout } = box.run(["explain", "README.md", "--agent", "plan"]);
    expect(stdout).toContain(
      "  no-console     block  `console.log(` in files matching src/**/*.ts (none of the files given)\n",
    );
    expect(stdout).toContain("  plan-todo      block  `TODO` in README.md\n");
  });

  test("--json: the rules that forbid, the files each holds in, and whether it applies to this agent and model", () => {
    const json = JSON.parse(box.run(["explain", "--json", "src/app.ts"]).stdout);
    expect(json.forbidding).toEqual([
      {
        name: "no-any",
        mode: "warn",
        forbid: ["/:\\s*any\\b/"],
        forbidCommands: [],
        files: ["src/app.ts"],
        applies: true,
      },
      {
        name: "no-console",
        mode: "block",
        forbid: ["console.log("],
        forbidCommands: [],
        files: ["src/app.ts"],
        applies: true,
      },
      {
        name: "no-force-push",
        mode: "block",
        forbid: [],
        forbidCommands: ["/git\\s+push\\s+(-f|--force)\\b/"],
        files: [],
        applies: true,
      },
      { name: "plan-todo", mode: "block", forbid: ["TODO"], forbidCommands: [], files: ["src/app.ts"], applies: false },
    ]);
  });

  test("no rule forbids anything: no such section", async () => {
    for (const name of ["no-console", "no-any", "no-force-push", "plan-todo"])
      await rm(join(box.projectRules, `${name}.md`));
    const { stdout } = box.run(["explain", "src/app.ts"]);
    expect(stdout).not.toContain("Rules that forbid");
    expect(JSON.parse(box.run(["explain", "--json"]).stdout).forbidding).toEqual([]);
  });
});
