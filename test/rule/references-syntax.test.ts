/**
 * References with an in-memory reader: only the syntaxes a format defines,
 * Kiro's references relative to the workspace root, and a scan that stays
 * linear on hostile text.
 */
import { describe, expect, test } from "vitest";
import { mayHaveReferences } from "../../src/rule/reference-syntax.js";
import type { ReferenceOptions } from "../../src/rule/references.js";
import { expand, memory } from "../support/references.js";
import { shown } from "../support/shown-warnings.js";

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
        line: 1,
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
