/** Content conditions as the command line shows them: `list` names the patterns, `explain` reads the files given, `check` refuses a pattern it cannot use. */
import { beforeEach, describe, expect, test } from "vitest";
import { type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox((box) =>
  box.write({
    ".opencode/rules/legacy-client.md":
      "---\nfileContains: [legacyFetch(, /from 'old-http'/]\n---\nUse the new client.\n",
    ".opencode/rules/sql-drops.md":
      "---\nglobs: db/**/*.sql\nmatch: all\nfileContains: /drop\\s+table/i\n---\nEvery DROP needs a backup step.\n",
    "src/net.ts": "export const get = (url: string) => legacyFetch(url);\n",
    "src/clean.ts": "export const b = 2;\n",
    "db/001.sql": "DROP TABLE users;\n",
    "notes/drop.md": "drop table users\n",
  }),
);
let box: Sandbox;
beforeEach(() => {
  box = current();
});

describe("content conditions on the command line", () => {
  test("list shows what content activates each rule", () => {
    const { stdout, code } = box.run(["list"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}legacy-client\s+content: "legacyFetch\(", "\/from 'old-http'\/"/m);
    expect(stdout).toMatch(/^ {2}sql-drops\s+files: db\/\*\*\/\*\.sql and content: "\/drop\\\\s\+table\/i"/m);
  });

  test("explain reads the files given and says which content matched, and where none did", () => {
    const hit = box.run(["explain", "--files", "src/net.ts"]);
    expect(hit.stdout).toMatch(/✓ legacy-client\s+≈ \d+ tokens\s+content: src\/net\.ts contains "legacyFetch\("/);
    const miss = box.run(["explain", "src/clean.ts"]);
    expect(miss.stdout).toMatch(
      /✗ legacy-client\s+content: no file of the session seen containing "legacyFetch\(", "\/from 'old-http'\/"/,
    );
    // match: all: a file the globs match must hold it; the same text elsewhere does not count.
    expect(box.run(["explain", "notes/drop.md", "db/001.sql"]).stdout).toMatch(
      /✓ sql-drops\s+≈ \d+ tokens\s+files: db\/001\.sql matched db\/\*\*\/\*\.sql; content: db\/001\.sql contains "\/drop\\\\s\+table\/i"/,
    );
    expect(box.run(["explain", "notes/drop.md"]).stdout).toMatch(/✗ sql-drops/);
  });

  test("check: a content pattern the engine cannot use is an error at its line", async () => {
    await box.write({ ".opencode/rules/bad.md": "---\nfileContains:\n  - /(?<=x)y/\n---\nBody.\n" });
    const { stdout, code } = box.run(["check"]);
    expect(stdout).not.toContain("match: all");
    expect(code).toBe(1);
    expect(stdout).toContain(
      '.opencode/rules/bad.md:3: content pattern "/(?<=x)y/" in "fileContains" uses a lookbehind',
    );
    expect(stdout).toContain('.opencode/rules/bad.md:2: no pattern of "fileContains" can be used');
  });
});
