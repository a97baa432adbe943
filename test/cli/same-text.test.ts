/**
 * One text under two names on the command line (issue 44), run in-process
 * (no build needed): a Cursor rule and a Claude Code rule rulesync keeps in
 * sync. `list` says which is the same text as which and counts the text
 * once in its total; `explain` delivers the first by precedence that
 * applies and names the other as its same text.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { cliTree, runInProcess } from "../support/cli-in-process.js";
import type { TempTree } from "../support/temp-folder.js";

const BODY = "Prefer small functions.\nName things for what they are.\n";
let tree: TempTree;
let env: Record<string, string | undefined>;

beforeEach(async () => {
  ({ tree, env } = await cliTree("rulebook-same-text-"));
  await tree.write(tree.project, { "src/a.ts": "export const a = 1;\n", "README.md": "# p\n" });
});
afterEach(() => tree.cleanup());

const cli = (...args: string[]) => runInProcess(args, { env, home: tree.home, cwd: tree.project });
/** Cursor's copy (by its globs, or always) and Claude Code's (always); in message order `code-style` comes first. */
const write = (cursorFrontMatter: string) =>
  tree.write(tree.project, {
    ".cursor/rules/style.mdc": `---\n${cursorFrontMatter}\n---\n${BODY}`,
    ".claude/rules/code-style.md": BODY,
    ".opencode/rules/testing.md": "Test every branch.\n",
  });

describe("list", () => {
  test("the copy says whose text it is; the total counts the text once", async () => {
    await write("alwaysApply: true");
    const { stdout, code } = await cli("list");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}style\s+always \(Always\) · same text as code-style\s+\d+ B/m);
    expect(stdout.match(/same text as code-style/g)).toHaveLength(1);
    const json = JSON.parse((await cli("list", "--json")).stdout) as {
      rules: Array<{ name: string; bytes: number; sameTextAs: string | null }>;
    };
    const byName = new Map(json.rules.map((rule) => [rule.name, rule]));
    expect(byName.get("style")?.sameTextAs).toBe("code-style");
    expect(byName.get("code-style")?.sameTextAs).toBeNull();
    const total = (byName.get("code-style")?.bytes ?? 0) + (byName.get("testing")?.bytes ?? 0);
    expect(stdout).toContain(`3 rules (0 global, 3 project), ${total} B`);
    expect(stdout).toContain("(1 with the same text as another, counted once)");
  });
});

describe("explain", () => {
  test("both apply: the first by precedence is delivered, the other named as its same text, the text once in the message", async () => {
    await write("alwaysApply: true");
    const { stdout } = await cli("explain", "src/a.ts");
    expect(stdout).toMatch(/✓ code-style\s+≈ \d+ tokens\s+always/);
    expect(stdout).toMatch(/✗ style\s+same text as code-style: applies; its text is delivered once, as code-style/);
    expect(stdout).toMatch(/2 rules delivered, 0 listed on request, 0 left out, 1 same text as another/);
    const json = JSON.parse((await cli("explain", "src/a.ts", "--json")).stdout) as {
      delivered: Array<{ name: string }>;
      notDelivered: Array<{ name: string; sameTextAs?: string }>;
      sameText: Array<{ name: string; as: string }>;
      message: { bytes: number };
    };
    expect(json.delivered.map((rule) => rule.name)).toEqual(["code-style", "testing"]);
    expect(json.notDelivered).toEqual([expect.objectContaining({ name: "style", sameTextAs: "code-style" })]);
    expect(json.sameText).toEqual([{ name: "style", as: "code-style" }]);
    const rendered = (await cli("render", "--files", "src/a.ts")).stdout;
    expect(rendered.split("Prefer small functions.").length - 1).toBe(1);
  });

  test("the first by precedence does not apply: the copy that does is delivered", async () => {
    await write("globs: src/**/*.ts\nalwaysApply: false");
    await tree.write(tree.project, { ".claude/rules/code-style.md": `---\npaths: docs/**\n---\n${BODY}` });
    const { stdout } = await cli("explain", "src/a.ts");
    expect(stdout).toMatch(/✓ style\s+≈ \d+ tokens\s+files: src\/a\.ts matched src\/\*\*\/\*\.ts/);
    expect(stdout).toMatch(/✗ code-style\s+files: /);
    expect(stdout).not.toContain("same text");
  });
});
