/**
 * Gemini CLI's `@path` imports (`gemini-import`, Gemini CLI and Antigravity
 * rules): an `@` word is a reference only when it looks like a path, as
 * Gemini's import reader finds it (an `@` at a line's start or after a blank,
 * the path up to the next blank, outside code). Ordinary `@` words of code
 * and prose stay text with no warning.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { ReferenceOptions } from "../../src/rule/references.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { expand, memory } from "../support/references.js";
import { shown } from "../support/shown-warnings.js";

const GEMINI: Partial<ReferenceOptions> = { syntaxes: ["gemini-import"] };
const gemini = (text: string, files: Record<string, string>, extra: Partial<ReferenceOptions> = {}) =>
  expand(text, files, { ...GEMINI, ...extra });

describe("gemini-import: what is a reference", () => {
  test("decorators, CSS at-rules, npm scopes, e-mail addresses, mentions and URLs: text, no warning, nothing read", async () => {
    const text = [
      "@pytest.mark.parametrize",
      '@pytest.mark.parametrize("a,b", [(1, 2)])',
      "@Component",
      "@Component({ selector: 'app-root' })",
      "@Input() name: string;",
      "@media (min-width: 600px) { }",
      "npm i -D @types/node @angular/core @testing-library/react",
      'Use @app.get("/users") and @mock.patch for this; @app.get("/users.json") returns JSON.',
      "Write to dev@example.com or ask @alice.",
      "See @https://example.com/guide.md for more.",
    ].join("\n");
    const mem = memory({});
    expect(await gemini(text, {}, mem)).toEqual({ text, warnings: [], included: [] });
    expect(mem.reads).toEqual([]);
  });

  test("@./docs/style.md, @docs/style.md, @style.md, @Component.ts, @../x.md, @/abs.md, @.name: references", async () => {
    const files = {
      "/p/rules/docs/style.md": "DOCS",
      "/p/rules/style.md": "STYLE",
      "/p/rules/Component.ts": "TS",
      "/p/shared.md": "UP",
      "/p/abs.md": "ABS",
      "/p/rules/.conventions": "DOT",
    };
    const out = await gemini(
      "A @./docs/style.md B @docs/style.md\n@style.md and @Component.ts\n@../shared.md @/p/abs.md @.conventions",
      files,
    );
    expect(out.text).toBe("A DOCS B DOCS\nSTYLE and TS\nUP ABS DOT");
    expect(out.warnings).toEqual([]);
  });

  test("a word that only may be a path is followed when it names a file, as Gemini CLI would", async () => {
    const files = {
      "/p/rules/types/node": "NODE TYPES",
      "/p/rules/pytest.mark.parametrize": "ODD BUT THERE",
      "/p/rules/https:/example.com/x.md": "NOT A URL'S",
    };
    const out = await gemini("@types/node\n@pytest.mark.parametrize\n@angular/core\n@https://example.com/x.md", files);
    // A URL is never a path, as Gemini CLI refuses one, even when a folder `https:` would make it name a file.
    expect(out.text).toBe("NODE TYPES\nODD BUT THERE\n@angular/core\n@https://example.com/x.md");
    expect(out.warnings).toEqual([]);
  });

  test("a word that only may be a path and names a folder stays text with no warning; a sure one is warned about", async () => {
    const folder: Partial<ReferenceOptions> = {
      realpath: async (path) => ({ ok: true, realPath: path }),
      read: async () => ({ ok: false, reason: "it is not a regular file", notAFile: true }),
    };
    const quiet = await gemini("Put them in @src/components", {}, folder);
    expect(quiet).toEqual({ text: "Put them in @src/components", warnings: [], included: [] });
    const loud = await gemini("@./src/components", {}, folder);
    expect(shown(loud.warnings).map((w) => w.message)).toEqual([
      "reference @./src/components cannot be read (it is not a regular file); left as text",
    ]);
  });

  test("in inline code or a fenced block, or running on into code: text, even when the file exists", async () => {
    const text =
      "Write `@docs/x.md` or ``@docs/x.md``\n```\n@docs/x.md\n```\n~~~\n@x.md\n~~~\n@docs/x.md`x` @docs/`name`.md";
    expect(await gemini(text, { "/p/rules/docs/x.md": "X", "/p/rules/x.md": "X" })).toEqual({
      text,
      warnings: [],
      included: [],
    });
  });

  test("a missing @docs/x.md is warned about, with its line; a missing maybe-path is not", async () => {
    const out = await gemini("Intro\n\nRead @docs/x.md first.\n@types/node", {});
    expect(shown(out.warnings)).toEqual([
      {
        path: "/p/rules/main.md",
        line: 3,
        message: "reference @docs/x.md names a file that does not exist (/p/rules/docs/x.md); left as text",
      },
    ]);
  });

  test("trailing punctuation is part of the path, as in Gemini CLI: not included, and the warning shows it", async () => {
    const out = await gemini("Follow @docs/style.md.", { "/p/rules/docs/style.md": "STYLE" });
    expect(out.text).toBe("Follow @docs/style.md.");
    expect(shown(out.warnings).map((w) => w.message)).toEqual([
      "reference @docs/style.md. names a file that does not exist (/p/rules/docs/style.md.); left as text",
    ]);
  });

  test("in an included file: the line in that file, after its front matter; a missing maybe-path past the depth is text", async () => {
    const files: Record<string, string> = { "/p/rules/a.md": "---\nx: 1\n---\n\nA\n@gone.md" };
    const out = await gemini("@a.md", files);
    expect(shown(out.warnings)).toEqual([
      {
        path: "/p/rules/a.md",
        line: 6,
        message: "reference @gone.md names a file that does not exist (/p/rules/gone.md); left as text",
      },
    ]);
    const shallow = await gemini("@a.md", { "/p/rules/a.md": "A @types/node" }, { maxDepth: 1 });
    expect(shallow).toEqual({ text: "A @types/node", warnings: [], included: ["/p/rules/a.md"] });
  });
});

describe("gemini-import: linear on hostile text", () => {
  // A scan that backtracks fails by the test's timeout; speed is the bench's to measure.
  test("a long run of punctuation inside a word, and many @ words", async () => {
    const word = `@a${".".repeat(200_000)}b`;
    expect((await gemini(word, {})).text).toBe(word);
    const many = "@x @a.b x@y ".repeat(20_000);
    expect(await gemini(many, {})).toEqual({ text: many, warnings: [], included: [] });
  });
});

describe("gemini-import through Antigravity's rules, on real folders", () => {
  let box: Box;
  useBox((made) => (box = made));

  test("ordinary @ words load with no warning; @/docs/style.md is read from the root; a missing one is warned about at its line", async () => {
    await box.write(box.project, {
      ".agents/rules/python.md": [
        "---",
        "trigger: always_on",
        "---",
        "",
        "Use @pytest.mark.parametrize for cases, @dataclass for records.",
        "Angular: @Component, @Input(); CSS: @media; types from @types/node.",
        "Components go in @src/components (a folder). Questions to dev@example.com. Style: @/docs/style.md",
        "@docs/missing.md",
      ].join("\n"),
      "docs/style.md": "STYLE",
      ".agents/rules/src/components/.keep": "",
    });
    const { rules, warnings } = await loadSource(box, "antigravity");
    expect(rules.map((rule) => rule.name)).toEqual(["python"]);
    expect(rules[0]?.content).toContain("Questions to dev@example.com. Style: STYLE\n@docs/missing.md");
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".agents/rules/python.md"),
        line: 8,
        message: `reference @docs/missing.md names a file that does not exist (${join(box.project, ".agents/rules/docs/missing.md")}); left as text`,
      },
    ]);
  });
});
