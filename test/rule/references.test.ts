/**
 * References: `@path/file.md` alone on a line and Kiro's `#[[file:path]]`.
 * The pure expansion with an in-memory reader (code, the syntaxes a format
 * defines, Kiro's workspace-root fallback), then through `loadRules` on real
 * folders (symlinks, `..`, the config folder).
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { mayHaveReferences } from "../../src/rule/reference-syntax.js";
import { expandReferences, type ReferenceOptions } from "../../src/rule/references.js";
import { inside } from "../../src/rule/trust.js";
import { type Box, makeBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

/** An in-memory tree: path → text; `links` maps a path to its real path. */
function memory(
  files: Record<string, string>,
  links: Record<string, string> = {},
): Pick<ReferenceOptions, "realpath" | "read"> & { reads: string[] } {
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
  expandReferences(text, {
    file: "/p/rules/main.md",
    realFile: "/p/rules/main.md",
    allowed: ["/p"],
    allowedReal: ["/p"],
    trust: "repository",
    ...memory(files),
    ...extra,
  });

describe("expandReferences (pure)", () => {
  test("an @path line is replaced by the file's text, relative to the rule file; front matter of a Markdown file is dropped", async () => {
    const out = await expand("Before.\n@parts/a.md\nAfter.", {
      "/p/rules/parts/a.md": "---\ntitle: A\n---\n\nPart A.\n",
    });
    expect(out).toEqual({ text: "Before.\nPart A.\nAfter.", warnings: [], included: ["/p/rules/parts/a.md"] });
  });

  test("Kiro's #[[file:…]] anywhere in a line, several on one line", async () => {
    const out = await expand("Spec: #[[file:../api.yaml]] and #[[file: ../b.txt ]].", {
      "/p/api.yaml": "---\nopenapi: 3.1.0\n",
      "/p/b.txt": "B",
    });
    expect(out.text).toBe("Spec: ---\nopenapi: 3.1.0 and B.");
    expect(out.warnings).toEqual([]);
  });

  test("nested references, each relative to the file that holds it", async () => {
    const out = await expand("@one/a.md", {
      "/p/rules/one/a.md": "A\n@../two/b.md",
      "/p/rules/two/b.md": "B\n#[[file:c.md]]",
      "/p/rules/two/c.md": "C",
    });
    expect(out.text).toBe("A\nB\nC");
    expect(out.included).toEqual(["/p/rules/one/a.md", "/p/rules/two/b.md", "/p/rules/two/c.md"]);
  });

  test("at most 5 levels: the sixth is left as text with a warning", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 7; i++) files[`/p/rules/${i}.md`] = i < 7 ? `L${i}\n@${i + 1}.md` : "L7";
    const out = await expand("@1.md", files);
    expect(out.text).toBe("L1\nL2\nL3\nL4\nL5\n@6.md");
    expect(shown(out.warnings)).toEqual([
      { path: "/p/rules/5.md", message: "reference @6.md is nested more than 5 levels deep; left as text" },
    ]);
  });

  test("a cycle is reported and left as text", async () => {
    const out = await expand("Main\n@a.md", {
      "/p/rules/a.md": "A\n@b.md",
      "/p/rules/b.md": "B\n@main.md",
      "/p/rules/main.md": "Main\n@a.md",
    });
    expect(out.text).toBe("Main\nA\nB\n@main.md");
    expect(shown(out.warnings)).toEqual([
      {
        path: "/p/rules/b.md",
        message:
          "reference @main.md is a cycle (/p/rules/main.md → /p/rules/a.md → /p/rules/b.md → /p/rules/main.md); left as text",
      },
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
    expect(shown(out.warnings).map((w) => w.message)).toEqual([
      "reference @link.md leads outside the repository (to /secret/key.md); refused; left as text",
    ]);
    expect(mem.reads).toEqual([]);
  });

  test("a missing file: a warning, the line stays", async () => {
    const out = await expand("@docs/missing.md", {});
    expect(out.text).toBe("@docs/missing.md");
    expect(shown(out.warnings)).toEqual([
      {
        path: "/p/rules/main.md",
        message: "reference @docs/missing.md names a file that does not exist (/p/rules/docs/missing.md); left as text",
      },
    ]);
  });

  test("not references: @mentions of rules, @ inside a sentence, e-mail addresses, code fences", async () => {
    const text =
      "@security\nAsk @team/lead.md about it.\nmail me@example.com\n```\n@a.md\n#[[file:a.md]]\n```\n~~~md\n@a.md\n~~~";
    const out = await expand(text, { "/p/rules/a.md": "A" });
    expect(out).toEqual({ text, warnings: [], included: [] });
  });

  test("a size limit: past it, references stay as text", async () => {
    const out = await expand(
      "@a.md\n@b.md",
      { "/p/rules/a.md": "x".repeat(50), "/p/rules/b.md": "y".repeat(50) },
      { maxBytes: 80 },
    );
    expect(out.text).toBe(`${"x".repeat(50)}\n@b.md`);
    expect(shown(out.warnings).map((w) => w.message)).toEqual([
      "reference @b.md would make the rule larger than 80 bytes; left as text",
    ]);
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

describe("expandReferences: references in code are text", () => {
  const files = { "/p/rules/a.md": "A", "/p/rules/workflow.defn": "NOT CODE" };

  test("#[[file:…]] in inline code spans of 1 and 2 backticks stays, with no warning; one in the prose around them is expanded", async () => {
    const text = "Write `#[[file:a.md]]` or ``#[[file:a.md]] (a ` inside)`` to include; #[[file:a.md]] `x`";
    const out = await expand(text, files);
    expect(out).toEqual({
      text: "Write `#[[file:a.md]]` or ``#[[file:a.md]] (a ` inside)`` to include; A `x`",
      warnings: [],
      included: ["/p/rules/a.md"],
    });
  });

  test("a reference that starts or ends in a code span is text; an unmatched backtick makes no span", async () => {
    const out = await expand("`#[[file:a.md` ]] and #[[file:`a.md]]` and ` #[[file:a.md]]", files);
    expect(out.text).toBe("`#[[file:a.md` ]] and #[[file:`a.md]]` and ` A");
    expect(out.warnings).toEqual([]);
  });

  test("a Python decorator alone on a line: a reference in prose, text in a ```python fence", async () => {
    const prose = await expand("@workflow.defn", {});
    expect(shown(prose.warnings).map((w) => w.message)).toEqual([
      "reference @workflow.defn names a file that does not exist (/p/rules/workflow.defn); left as text",
    ]);
    const text = "Example:\n```python\n@workflow.defn\nclass Flow:\n    pass\n```";
    expect(await expand(text, files)).toEqual({ text, warnings: [], included: [] });
  });

  test("a ```` fence holding a ``` line is not closed by it", async () => {
    const text = "````md\n```python\n@workflow.defn\n```\n@workflow.defn\n#[[file:a.md]]\n````\n@a.md";
    const out = await expand(text, files);
    expect(out).toEqual({ text: text.replace(/@a\.md$/, "A"), warnings: [], included: ["/p/rules/a.md"] });
  });

  test("an indented tilde fence (in a list item), closed only by tildes", async () => {
    const text = "- Steps:\n  ~~~text\n  @a.md\n  ```\n  #[[file:a.md]]\n  ~~~\n  @a.md";
    const out = await expand(text, files);
    expect(out.text).toBe(text.replace(/ {2}@a\.md$/, "A"));
    expect(out.warnings).toEqual([]);
  });

  test("an unclosed fence runs to the end", async () => {
    const out = await expand("@a.md\n```\n@a.md\n#[[file:a.md]]\n@workflow.defn", files);
    expect(out.text).toBe("A\n```\n@a.md\n#[[file:a.md]]\n@workflow.defn");
    expect(out.warnings).toEqual([]);
  });

  test("code inside an included file is text too", async () => {
    const out = await expand("@a.md", {
      "/p/rules/a.md": "A\n```\n@b.md\n```\n`#[[file:b.md]]`",
      "/p/rules/b.md": "B",
    });
    expect(out.text).toBe("A\n```\n@b.md\n```\n`#[[file:b.md]]`");
    expect(out.included).toEqual(["/p/rules/a.md"]);
  });
});

describe("expandReferences: only the syntaxes the format defines", () => {
  const files = { "/p/rules/docs/x.md": "X" };
  const text = "@docs/x.md\nSee #[[file:docs/x.md]].";

  test("without at-line, @docs/x.md is text with no warning", async () => {
    expect(await expand(text, files, { syntaxes: ["kiro-file"] })).toEqual({
      text: "@docs/x.md\nSee X.",
      warnings: [],
      included: ["/p/rules/docs/x.md"],
    });
  });

  test("without kiro-file, #[[file:…]] is text with no warning", async () => {
    expect(await expand(text, files, { syntaxes: ["at-line"] })).toEqual({
      text: "X\nSee #[[file:docs/x.md]].",
      warnings: [],
      included: ["/p/rules/docs/x.md"],
    });
  });

  test("none: the text as it is, nothing read", async () => {
    const mem = memory(files);
    expect(await expand(`${text}\n@missing.md`, {}, { ...mem, syntaxes: [] })).toEqual({
      text: `${text}\n@missing.md`,
      warnings: [],
      included: [],
    });
    expect(mem.reads).toEqual([]);
  });

  test("a syntax left out is not followed inside an included file either", async () => {
    const out = await expand(
      "#[[file:a.md]]",
      { "/p/rules/a.md": "A\n@b.md", "/p/rules/b.md": "B" },
      { syntaxes: ["kiro-file"] },
    );
    expect(out.text).toBe("A\n@b.md");
  });

  test("mayHaveReferences looks only for the syntaxes given", () => {
    expect(mayHaveReferences("@a/b.md", ["kiro-file"])).toBe(false);
    expect(mayHaveReferences("x\n  @a/b.md  \ny", ["at-line"])).toBe(true);
    expect(mayHaveReferences("x #[[file:y]]", ["at-line"])).toBe(false);
    expect(mayHaveReferences("x #[[file:y]]", ["kiro-file"])).toBe(true);
    expect(mayHaveReferences("@a/b.md #[[file:y]]", [])).toBe(false);
    expect(mayHaveReferences("@rule-name\nmail me@example.com", ["at-line", "kiro-file"])).toBe(false);
  });
});

describe("expandReferences: Kiro's references relative to the workspace root", () => {
  const steering = "/p/.kiro/steering/a.md";
  const kiro = (text: string, files: Record<string, string>, extra: Partial<ReferenceOptions> = {}) =>
    expand(text, files, { file: steering, realFile: steering, syntaxes: ["kiro-file"], roots: ["/p"], ...extra });

  test("a file missing next to the steering file is found under the root", async () => {
    const out = await kiro("Page: #[[file:src/app/page.tsx]]", { "/p/src/app/page.tsx": "PAGE" });
    expect(out).toEqual({ text: "Page: PAGE", warnings: [], included: ["/p/src/app/page.tsx"] });
  });

  test("next to the steering file wins when both exist", async () => {
    const out = await kiro("#[[file:src/app/page.tsx]]", {
      "/p/src/app/page.tsx": "ROOT",
      "/p/.kiro/steering/src/app/page.tsx": "NEXT",
    });
    expect(out.text).toBe("NEXT");
    expect(out.included).toEqual(["/p/.kiro/steering/src/app/page.tsx"]);
  });

  test("the roots in order, the first that has the file", async () => {
    const out = await kiro(
      "#[[file:x.md]]",
      { "/p/b/x.md": "B", "/p/c/x.md": "C" },
      { roots: ["/p/a", "/p/b", "/p/c"] },
    );
    expect(out.text).toBe("B");
  });

  test("missing everywhere: one warning naming every place tried", async () => {
    const out = await kiro("#[[file:src/gone.ts]]", {});
    expect(out.text).toBe("#[[file:src/gone.ts]]");
    expect(shown(out.warnings)).toEqual([
      {
        path: steering,
        message:
          "reference #[[file:src/gone.ts]] names a file that does not exist (/p/.kiro/steering/src/gone.ts or /p/src/gone.ts); left as text",
      },
    ]);
    expect(out.warnings[0]).toMatchObject({
      code: "reference-missing",
      target: "/p/.kiro/steering/src/gone.ts",
      alsoTried: ["/p/src/gone.ts"],
    });
  });

  test("a fallback outside the allowed folders is refused unread: a root outside them, or `..` past the root", async () => {
    const mem = memory({ "/q/x.md": "OUTSIDE", "/outside.md": "OUTSIDE" });
    const out = await kiro("#[[file:x.md]]", {}, { ...mem, roots: ["/q"] });
    expect(out.text).toBe("#[[file:x.md]]");
    expect(shown(out.warnings).map((w) => w.message)).toEqual([
      "reference #[[file:x.md]] points outside the repository (/q/x.md); refused; left as text",
    ]);
    const up = await kiro("#[[file:../../outside.md]]", {}, mem);
    expect(up.text).toBe("#[[file:../../outside.md]]");
    expect(shown(up.warnings).map((w) => w.message)).toEqual([
      "reference #[[file:../../outside.md]] points outside the repository (/outside.md); refused; left as text",
    ]);
    expect(mem.reads).toEqual([]);
  });

  test("a fallback that exists but leads (a symlink) outside is refused, and the search stops there", async () => {
    const mem = memory({ "/secret/key.md": "SECRET", "/p/b/key.md": "B" }, { "/p/a/key.md": "/secret/key.md" });
    const out = await kiro("#[[file:key.md]]", {}, { ...mem, roots: ["/p/a", "/p/b"] });
    expect(out.text).toBe("#[[file:key.md]]");
    expect(shown(out.warnings).map((w) => w.message)).toEqual([
      "reference #[[file:key.md]] leads outside the repository (to /secret/key.md); refused; left as text",
    ]);
    expect(mem.reads).toEqual([]);
  });

  test("nested references: next to the included file first, then the roots", async () => {
    const out = await kiro("#[[file:src/a.md]]", {
      "/p/src/a.md": "A #[[file:b.md]] #[[file:lib/c.md]]",
      "/p/src/b.md": "B",
      "/p/lib/c.md": "C",
    });
    expect(out.text).toBe("A B C");
    expect(out.included).toEqual(["/p/src/a.md", "/p/src/b.md", "/p/lib/c.md"]);
  });

  test("only #[[file:…]] gets the fallback: an @path line is relative to its file alone", async () => {
    const out = await kiro(
      "@src/app/page.tsx",
      { "/p/src/app/page.tsx": "PAGE" },
      { syntaxes: ["at-line", "kiro-file"] },
    );
    expect(out.text).toBe("@src/app/page.tsx");
    expect(shown(out.warnings).map((w) => w.message)).toEqual([
      "reference @src/app/page.tsx names a file that does not exist (/p/.kiro/steering/src/app/page.tsx); left as text",
    ]);
  });
});

describe("expandReferences: linear on hostile text", () => {
  // Speed is the bench's to measure; here, a scan that backtracks (the old one took minutes on this text) fails by the test's timeout.
  test("many openings with no closing ]], many blank lines, many backticks", async () => {
    const opens = "#[[file:".repeat(200_000);
    const out = await expand(opens, {});
    expect(out.text).toBe(opens);
    expect(mayHaveReferences("\n".repeat(2_000_000), ["at-line"])).toBe(false);
    expect((await expand(`${"` ".repeat(200_000)}#[[file:x.md]]`, { "/p/rules/x.md": "X" })).text.endsWith("` X")).toBe(
      true,
    );
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
    expect(shown(loaded.warnings)).toEqual([
      {
        path: join(box.project, "parts/5.md"),
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

  test("a missing file: a warning naming the rule file, the line stays", async () => {
    await box.write(rulesDir(), { "gap.md": "Text\n@missing/part.md" });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe("Text\n@missing/part.md");
    expect(shown(loaded.warnings)).toEqual([
      {
        path: join(rulesDir(), "gap.md"),
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
