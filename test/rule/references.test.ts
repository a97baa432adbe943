/**
 * References: `@path/file.md` alone on a line and Kiro's `#[[file:path]]`.
 * The pure expansion with an in-memory reader, and references in code; the
 * syntaxes a format defines and Kiro's workspace-root fallback:
 * references-syntax.test.ts; through `loadRules` on real folders:
 * references-load.test.ts.
 */
import { describe, expect, test } from "vitest";
import { mayHaveReferences } from "../../src/rule/reference-syntax.js";
import { inside } from "../../src/rule/trust.js";
import { expand, memory } from "../support/references.js";
import { shown } from "../support/shown-warnings.js";

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

  test("at most 256 references a rule are looked up: the rest stay as text, said once", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 300; i++) files[`/p/rules/${i}.md`] = `P${i}`;
    const text = Array.from({ length: 300 }, (_, i) => `@${i + 1}.md`).join("\n");
    const out = await expand(text, files);
    const lines = out.text.split("\n");
    expect(lines.slice(254, 258)).toEqual(["P255", "P256", "@257.md", "@258.md"]);
    expect(out.included).toHaveLength(256);
    expect(shown(out.warnings)).toEqual([
      {
        path: "/p/rules/main.md",
        line: 257,
        message:
          "reference @257.md is past the first 256 references of the rule; it and the ones after it are left as text",
      },
    ]);
  });

  test("at most 5 levels: the sixth is left as text with a warning", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 7; i++) files[`/p/rules/${i}.md`] = i < 7 ? `L${i}\n@${i + 1}.md` : "L7";
    const out = await expand("@1.md", files);
    expect(out.text).toBe("L1\nL2\nL3\nL4\nL5\n@6.md");
    expect(shown(out.warnings)).toEqual([
      { path: "/p/rules/5.md", line: 2, message: "reference @6.md is nested more than 5 levels deep; left as text" },
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
        line: 2,
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
        line: 1,
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
