/**
 * References: `@path/file.md` alone on a line and Kiro's `#[[file:path]]`.
 * The pure expansion with an in-memory reader, then through `loadRules` on
 * real folders (symlinks, `..`, the config folder).
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { expandReferences, mayHaveReferences, type ReferenceOptions } from "../../src/rule/references.js";
import { inside } from "../../src/sources/trust.js";
import { type Box, makeBox } from "./helpers.js";
import { shown } from "./shown-warnings.js";

/** An in-memory tree: path → text; `links` maps a path to its real path. */
function memory(files: Record<string, string>, links: Record<string, string> = {}): Pick<ReferenceOptions, "realpath" | "read"> & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    realpath: async (path) => {
      const real = links[path] ?? path;
      return real in files ? { ok: true, realPath: real } : { ok: false, missing: true, reason: "ENOENT" };
    },
    read: async (path) => {
      reads.push(path);
      return { ok: true, text: files[path] as string };
    },
  };
}

const expand = (text: string, files: Record<string, string>, extra: Partial<ReferenceOptions> = {}) =>
  expandReferences(text, { file: "/p/rules/main.md", realFile: "/p/rules/main.md", allowed: ["/p"], allowedReal: ["/p"], trust: "repository", ...memory(files), ...extra });

describe("expandReferences (pure)", () => {
  test("an @path line is replaced by the file's text, relative to the rule file; front matter of a Markdown file is dropped", async () => {
    const out = await expand("Before.\n@parts/a.md\nAfter.", { "/p/rules/parts/a.md": "---\ntitle: A\n---\n\nPart A.\n" });
    expect(out).toEqual({ text: "Before.\nPart A.\nAfter.", warnings: [], included: ["/p/rules/parts/a.md"] });
  });

  test("Kiro's #[[file:…]] anywhere in a line, several on one line", async () => {
    const out = await expand("Spec: #[[file:../api.yaml]] and #[[file: ../b.txt ]].", { "/p/api.yaml": "---\nopenapi: 3.1.0\n", "/p/b.txt": "B" });
    expect(out.text).toBe("Spec: ---\nopenapi: 3.1.0 and B.");
    expect(out.warnings).toEqual([]);
  });

  test("nested references, each relative to the file that holds it", async () => {
    const out = await expand("@one/a.md", { "/p/rules/one/a.md": "A\n@../two/b.md", "/p/rules/two/b.md": "B\n#[[file:c.md]]", "/p/rules/two/c.md": "C" });
    expect(out.text).toBe("A\nB\nC");
    expect(out.included).toEqual(["/p/rules/one/a.md", "/p/rules/two/b.md", "/p/rules/two/c.md"]);
  });

  test("at most 5 levels: the sixth is left as text with a warning", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 7; i++) files[`/p/rules/${i}.md`] = i < 7 ? `L${i}\n@${i + 1}.md` : "L7";
    const out = await expand("@1.md", files);
    expect(out.text).toBe("L1\nL2\nL3\nL4\nL5\n@6.md");
    expect(shown(out.warnings)).toEqual([{ path: "/p/rules/5.md", message: "reference @6.md is nested more than 5 levels deep; left as text" }]);
  });

  test("a cycle is reported and left as text", async () => {
    const out = await expand("Main\n@a.md", { "/p/rules/a.md": "A\n@b.md", "/p/rules/b.md": "B\n@main.md", "/p/rules/main.md": "Main\n@a.md" });
    expect(out.text).toBe("Main\nA\nB\n@main.md");
    expect(shown(out.warnings)).toEqual([
      { path: "/p/rules/b.md", message: "reference @main.md is a cycle (/p/rules/main.md → /p/rules/a.md → /p/rules/b.md → /p/rules/main.md); left as text" },
    ]);
  });

  test("a file referencing itself is a cycle", async () => {
    const out = await expand("#[[file:main.md]]", { "/p/rules/main.md": "x" });
    expect(out.text).toBe("#[[file:main.md]]");
    expect(shown(out.warnings)[0]?.message).toContain("is a cycle");
  });

  test("outside the allowed folders through `..` or an absolute path: refused without being read", async () => {
    const mem = memory({ "/etc/passwd": "root:x:0:0" });
    const out = await expand("@../../../etc/passwd.md\n#[[file:/etc/passwd]]", {}, mem);
    expect(out.text).toBe("@../../../etc/passwd.md\n#[[file:/etc/passwd]]");
    expect(shown(out.warnings).map((w) => w.message)).toEqual([
      "reference @../../../etc/passwd.md points outside the repository (/etc/passwd.md); refused; left as text",
      "reference #[[file:/etc/passwd]] points outside the repository (/etc/passwd); refused; left as text",
    ]);
    expect(mem.reads).toEqual([]);
  });

  test("a path inside that resolves (a symlink) outside: refused without being read", async () => {
    const mem = memory({ "/secret/key.md": "SECRET" }, { "/p/rules/link.md": "/secret/key.md" });
    const out = await expand("@link.md", {}, mem);
    expect(out.text).toBe("@link.md");
    expect(shown(out.warnings).map((w) => w.message)).toEqual(["reference @link.md leads outside the repository (to /secret/key.md); refused; left as text"]);
    expect(mem.reads).toEqual([]);
  });

  test("a missing file: a warning, the line stays", async () => {
    const out = await expand("@docs/missing.md", {});
    expect(out.text).toBe("@docs/missing.md");
    expect(shown(out.warnings)).toEqual([
      { path: "/p/rules/main.md", message: "reference @docs/missing.md names a file that does not exist (/p/rules/docs/missing.md); left as text" },
    ]);
  });

  test("not references: @mentions of rules, @ inside a sentence, e-mail addresses, code fences", async () => {
    const text = "@security\nAsk @team/lead.md about it.\nmail me@example.com\n```\n@a.md\n#[[file:a.md]]\n```\n~~~md\n@a.md\n~~~";
    const out = await expand(text, { "/p/rules/a.md": "A" });
    expect(out).toEqual({ text, warnings: [], included: [] });
  });

  test("a size limit: past it, references stay as text", async () => {
    const out = await expand("@a.md\n@b.md", { "/p/rules/a.md": "x".repeat(50), "/p/rules/b.md": "y".repeat(50) }, { maxBytes: 80 });
    expect(out.text).toBe(`${"x".repeat(50)}\n@b.md`);
    expect(shown(out.warnings).map((w) => w.message)).toEqual(["reference @b.md would make the rule larger than 80 bytes; left as text"]);
  });

  test("mayHaveReferences and inside", () => {
    expect(mayHaveReferences("@a/b.md")).toBe(true);
    expect(mayHaveReferences("x #[[file:y]]")).toBe(true);
    expect(mayHaveReferences("@mention only")).toBe(false);
    expect(inside("/p/a", ["/p"])).toBe(true);
    expect(inside("/p", ["/p"])).toBe(true);
    expect(inside("/p/../q", ["/p"])).toBe(false);
    expect(inside("/pq/a", ["/p"])).toBe(false);
    expect(inside("/p/..a/b", ["/p"])).toBe(true);
  });
});

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
    expect(shown(loaded.warnings)).toEqual([{ path: join(box.project, "parts/5.md"), message: "reference @6.md is nested more than 5 levels deep; left as text" }]);
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

  test("a missing file: a warning naming the rule file, the line stays", async () => {
    await box.write(rulesDir(), { "gap.md": "Text\n@missing/part.md" });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe("Text\n@missing/part.md");
    expect(shown(loaded.warnings)).toEqual([
      { path: join(rulesDir(), "gap.md"), message: `reference @missing/part.md names a file that does not exist (${join(rulesDir(), "missing/part.md")}); left as text` },
    ]);
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
    await box.write(box.root, { "team/rules/t.md": "@inc/part.md\n@../snippets/s.md", "team/snippets/s.md": "Not in a rules folder.", "team/rules/inc/part.md": "Part." });
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
