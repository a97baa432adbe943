/**
 * References through `loadRules`, on real folders: symlinks, `..`, the
 * config folder.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { type Box, makeBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

describe("references through loadRules, on real folders", () => {
  let box: Box;
  beforeEach(async () => {
    box = await makeBox();
  });
  afterEach(() => box.cleanup());

  const rulesDir = () => join(box.project, ".opencode", "rules");
  const content = async (name: string) => (await box.load()).rules.find((rule) => rule.name === name)?.content;

  test("nested references inside the project, and the included files are listed", async () => {
    await box.write(box.project, { "docs/a.md": "A\n@b/b.md", "docs/b/b.md": "B" });
    await box.write(rulesDir(), { "main.md": "Main\n@../../docs/a.md" });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe("Main\nA\nB");
    expect(loaded.references).toEqual([join(box.project, "docs/a.md"), join(box.project, "docs/b/b.md")]);
    expect(loaded.warnings).toEqual([]);
  });

  test("a cycle between two rule files: each loads once expanded, with a warning", async () => {
    await box.write(rulesDir(), { "a.md": "A\n@b.md", "b.md": "B\n@a.md" });
    const loaded = await box.load();
    expect(loaded.rules.map((rule) => rule.content)).toEqual(["A\nB\n@a.md", "B\nA\n@b.md"]);
    expect(shown(loaded.warnings).map((w) => w.message)).toEqual([
      `reference @a.md is a cycle (${join(rulesDir(), "a.md")} → ${join(rulesDir(), "b.md")} → ${join(rulesDir(), "a.md")}); left as text`,
      `reference @b.md is a cycle (${join(rulesDir(), "b.md")} → ${join(rulesDir(), "a.md")} → ${join(rulesDir(), "b.md")}); left as text`,
    ]);
  });

  test("the depth limit through real files", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 6; i++) files[`parts/${i}.md`] = i < 6 ? `P${i}\n@${i + 1}.md` : "P6";
    await box.write(box.project, files);
    await box.write(rulesDir(), { "deep.md": "@../../parts/1.md" });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe("P1\nP2\nP3\nP4\nP5\n@6.md");
    expect(shown(loaded.warnings)).toEqual([
      {
        path: join(box.project, "parts/5.md"),
        line: 2,
        message: "reference @6.md is nested more than 5 levels deep; left as text",
      },
    ]);
  });

  test("outside the project through `..`: refused and left as text", async () => {
    await box.write(box.root, { "outside.md": "SECRET" });
    await box.write(rulesDir(), { "escape.md": "Start\n@../../../outside.md\n#[[file:../../../outside.md]]" });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe("Start\n@../../../outside.md\n#[[file:../../../outside.md]]");
    expect(shown(loaded.warnings).map((w) => w.message)).toEqual([
      `reference @../../../outside.md points outside the repository (${join(box.root, "outside.md")}); refused; left as text`,
      `reference #[[file:../../../outside.md]] points outside the repository (${join(box.root, "outside.md")}); refused; left as text`,
    ]);
    expect(JSON.stringify(loaded)).not.toContain("SECRET");
  });

  test("a symlink inside the project leading outside: refused and left as text", async () => {
    await box.write(box.root, { "secret/key.md": "SECRET" });
    await box.link(join(box.root, "secret"), join(box.project, "docs", "linked"));
    await box.link(join(box.root, "secret", "key.md"), join(box.project, "docs", "key.md"));
    await box.write(rulesDir(), { "sneaky.md": "@../../docs/linked/key.md\n@../../docs/key.md" });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe("@../../docs/linked/key.md\n@../../docs/key.md");
    expect(shown(loaded.warnings).map((w) => w.message)).toEqual([
      `reference @../../docs/linked/key.md leads outside the repository (to ${join(box.root, "secret/key.md")}); refused; left as text`,
      `reference @../../docs/key.md leads outside the repository (to ${join(box.root, "secret/key.md")}); refused; left as text`,
    ]);
    expect(JSON.stringify(loaded)).not.toContain("SECRET");
  });

  test("a symlink whose target stays inside the project is followed", async () => {
    await box.write(box.project, { "shared/common.md": "Common." });
    await box.link(join(box.project, "shared", "common.md"), join(box.project, "docs", "common.md"));
    await box.write(rulesDir(), { "uses.md": "@../../docs/common.md" });
    expect(await content("uses")).toBe("Common.");
  });

  test("a missing file: a warning naming the rule file and the line in it (after front matter and blank lines), the line stays", async () => {
    await box.write(rulesDir(), { "gap.md": "---\npriority: 60\n---\n\n\nText\n@missing/part.md\n" });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe("Text\n@missing/part.md");
    expect(shown(loaded.warnings)).toEqual([
      {
        path: join(rulesDir(), "gap.md"),
        line: 7,
        message: `reference @missing/part.md names a file that does not exist (${join(rulesDir(), "missing/part.md")}); left as text`,
      },
    ]);
  });

  test("decorators and references in code load as written, with no warning", async () => {
    const text =
      "Use `#[[file:api.yaml]]` to include a spec.\n\n````md\n```python\n@workflow.defn\n```\n@activity.defn\n````";
    await box.write(rulesDir(), { "code.md": text });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe(text);
    expect(loaded.warnings).toEqual([]);
  });

  test("a user's rule may reach the config folder and the user-level rules folders, not the rest of home; a repository rule reaches none of them", async () => {
    await box.write(join(box.home, ".config/opencode"), { "snippets/tone.md": "Friendly tone." });
    await box.write(join(box.home, ".cursor/rules"), { "shared.md": "Shared Cursor text." });
    await box.write(box.home, { "private.md": "PRIVATE" });
    await box.write(join(box.home, ".config/opencode/rules"), { "g.md": "@../snippets/tone.md\n@../../../private.md" });
    await box.write(rulesDir(), { "p.md": `#[[file:${join(box.home, ".cursor/rules/shared.md")}]]` });
    const loaded = await box.load();
    expect(loaded.rules.map((rule) => [rule.name, rule.content])).toEqual([
      ["g", "Friendly tone.\n@../../../private.md"],
      ["shared", "Shared Cursor text."],
      ["p", `#[[file:${join(box.home, ".cursor/rules/shared.md")}]]`],
    ]);
    expect(shown(loaded.warnings).map((w) => w.message)).toEqual([
      `reference @../../../private.md points outside your rules and OpenCode config folders (${join(box.home, "private.md")}); refused; left as text`,
      `reference #[[file:${join(box.home, ".cursor/rules/shared.md")}]] points outside the repository (${join(box.home, ".cursor/rules/shared.md")}); refused; left as text`,
    ]);
  });

  test("OPENCODE_CONFIG_DIR moves the allowed config folder", async () => {
    const config = join(box.root, "oc-config");
    await box.write(config, { "rules/r.md": "@../parts/x.md", "parts/x.md": "From the config dir." });
    const loaded = await box.load({}, { env: { OPENCODE_CONFIG_DIR: config } });
    expect(loaded.rules.map((rule) => rule.content)).toEqual(["From the config dir."]);
  });

  test("an extraDirs folder outside the project that the user's config names is the user's: its rules may reference into it, a repository rule may not", async () => {
    await box.write(box.root, {
      "team/rules/t.md": "@inc/part.md\n@../snippets/s.md",
      "team/snippets/s.md": "Not in a rules folder.",
      "team/rules/inc/part.md": "Part.",
    });
    await box.write(rulesDir(), { "p.md": `@${join(box.root, "team/rules/inc/part.md")}` });
    const team = join(box.root, "team/rules");
    const loaded = await box.load({ extraDirs: [team] }, { userExtraDirs: [team] });
    expect(loaded.rules.map((rule) => [rule.name, rule.content])).toEqual([
      ["inc/part", "Part."],
      ["p", `@${join(box.root, "team/rules/inc/part.md")}`],
      ["t", "Part.\n@../snippets/s.md"],
    ]);
    expect(shown(loaded.warnings).map((w) => w.message)).toEqual([
      `reference @${join(box.root, "team/rules/inc/part.md")} points outside the repository (${join(box.root, "team/rules/inc/part.md")}); refused; left as text`,
      `reference @../snippets/s.md points outside your rules and OpenCode config folders (${join(box.root, "team/snippets/s.md")}); refused; left as text`,
    ]);
  });

  test("a referenced file over maxRuleBytes, or binary, is not included", async () => {
    await box.write(box.project, { "docs/big.md": "x".repeat(300), "docs/bin.md": "a\u0000b" });
    await box.write(rulesDir(), { "r.md": "@../../docs/big.md\n@../../docs/bin.md" });
    const loaded = await box.load({}, { maxRuleBytes: 200 });
    expect(loaded.rules[0]?.content).toBe("@../../docs/big.md\n@../../docs/bin.md");
    expect(shown(loaded.warnings).map((w) => w.message)).toEqual([
      "reference @../../docs/big.md cannot be read (it is over the 200-byte limit); left as text",
      "reference @../../docs/bin.md cannot be read (it is a binary file (contains NUL bytes)); left as text",
    ]);
  });
});
