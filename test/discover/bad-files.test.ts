/** Discovery of rule files that cannot be read, or read as rules: each is a warning, and the other rules still load. */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test, vi } from "vitest";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";
import { shown } from "../support/shown-warnings.js";
import { discoverSandbox, GOOD } from "../support/discover.js";
import { writeTree } from "../support/temp-folder.js";
import { globsOf } from "../../src/conditions/files.js";

const { box, discover } = discoverSandbox();

describe("discoverRules: files that cannot be read", () => {
  test("permission denied reading one rule: a warning, the other rules load", async () => {
    await writeTree(box.projectDir, { ...GOOD, "secret.md": "S" });
    const secret = join(box.projectDir, "secret.md");
    const fs: RuleFs = {
      ...nodeRuleFs,
      readFile: async (path, max) => {
        if (path === secret) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
        return nodeRuleFs.readFile(path, max);
      },
    };
    const { rules, warnings } = await discover({ fs });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(shown(warnings)).toEqual([{ path: secret, message: 'cannot be read (EACCES); rule "secret" skipped' }]);
  });

  test("permission denied listing a sub-folder: a warning, the other rules load", async () => {
    await writeTree(box.projectDir, { ...GOOD, "locked/x.md": "X" });
    const locked = join(box.projectDir, "locked");
    const fs: RuleFs = {
      ...nodeRuleFs,
      readdir: async (path) => {
        if (path === locked) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
        return nodeRuleFs.readdir(path);
      },
    };
    const { rules, warnings } = await discover({ fs });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(shown(warnings)).toEqual([
      { path: locked, message: "folder cannot be read (EACCES); its rules were not loaded" },
    ]);
  });

  test("a file over maxRuleBytes is skipped with a warning without being read", async () => {
    await writeTree(box.projectDir, { ...GOOD, "huge.md": "x".repeat(2000) });
    const huge = join(box.projectDir, "huge.md");
    const readFile = vi.fn(nodeRuleFs.readFile);
    const { rules, warnings } = await discover({ fs: { ...nodeRuleFs, readFile }, maxRuleBytes: 1000 });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(shown(warnings)).toEqual([
      {
        path: huge,
        message: 'the file is 2000 bytes, over the 1000-byte limit per rule; rule "huge" skipped without being read',
      },
    ]);
    expect(readFile.mock.calls.map((call) => call[0])).not.toContain(huge);
    expect(readFile).toHaveBeenCalledTimes(2);
  });

  test("a file of exactly maxRuleBytes is read", async () => {
    await writeTree(box.projectDir, { "edge.md": "x".repeat(100) });
    expect((await discover({ maxRuleBytes: 100 })).rules.map((r) => r.name)).toEqual(["edge"]);
  });

  test("a file that grew past the limit after the walk is skipped", async () => {
    await writeTree(box.projectDir, { ...GOOD, "grows.md": "small" });
    const grows = join(box.projectDir, "grows.md");
    const fs: RuleFs = {
      ...nodeRuleFs,
      readFile: async (path, max) => {
        if (path === grows) await writeFile(grows, "y".repeat(500));
        return nodeRuleFs.readFile(path, max);
      },
    };
    const { rules, warnings } = await discover({ fs, maxRuleBytes: 100 });
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(shown(warnings)).toEqual([
      { path: grows, message: 'the file is over the 100-byte limit per rule; rule "grows" skipped' },
    ]);
  });
});

describe("discoverRules: bad rule files warn and the other rules still load", () => {
  const cases: Array<[string, string | Uint8Array, string, number | undefined]> = [
    [
      "binary.md",
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]),
      'it is a binary file (contains NUL bytes); rule "binary" skipped',
      undefined,
    ],
    [
      "latin1.md",
      new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      'it is not valid UTF-8 text; rule "latin1" skipped',
      undefined,
    ],
    ["empty.md", "", 'the file is empty; rule "empty" skipped', undefined],
    ["blank.md", "  \n\n\t\n", 'the file is empty; rule "blank" skipped', undefined],
    [
      "only-front.md",
      "---\nglobs: src/**\n---\n",
      'the file has front matter but no rule text; rule "only-front" skipped',
      4,
    ],
    [
      "broken.md",
      "---\ndescription: x\nglobs: a\n  oops: b\n---\nBody",
      'front matter is not valid YAML (bad indentation of a mapping entry); rule "broken" skipped',
      4,
    ],
    [
      "open.md",
      "---\nglobs: a\nBody",
      'front matter opened with --- on line 1 is never closed by a --- line; rule "open" skipped',
      1,
    ],
    [
      "js.md",
      "---js\nglobalThis.pwned = true\n---\nBody",
      'front matter is marked "js"; only YAML front matter is read, and nothing in it was run; rule "js" skipped',
      1,
    ],
    [
      "dup.md",
      "---\nglobs: a\nglobs: b\n---\nBody",
      'front matter is not valid YAML (duplicated mapping key); rule "dup" skipped',
      3,
    ],
    [
      "bad-always.md",
      "---\nalwaysApply: maybe\n---\nBody",
      'front matter key "alwaysApply" should be true or false, found string "maybe"; rule "bad-always" skipped',
      2,
    ],
  ];

  test.each(cases)("%s", async (file, content, message, line) => {
    await writeTree(box.projectDir, { ...GOOD, [file]: content });
    const { rules, warnings, files } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(shown(warnings)).toEqual([{ path: join(box.projectDir, file), line, message }]);
    expect(files.map((f) => f.relPath)).toContain(file);
    expect((globalThis as Record<string, unknown>).pwned).toBeUndefined();
  });

  test("CRLF, lone CR and BOM files load correctly next to each other", async () => {
    await writeTree(box.projectDir, {
      "crlf.md": "---\r\nglobs: src/**/*.ts\r\n---\r\nWindows rule.\r\nSecond line.\r\n",
      "cr.md": "---\rglobs: lib/**\r---\rOld Mac rule.\r",
      "bom.md": new Uint8Array([
        0xef,
        0xbb,
        0xbf,
        ...new TextEncoder().encode("---\ndescription: with BOM\nalwaysApply: true\n---\nBOM rule."),
      ]),
    });
    const { rules, warnings } = await discover();
    expect(warnings).toEqual([]);
    expect(
      rules.map((r) => ({
        name: r.name,
        content: r.content,
        globs: globsOf(r),
        description: r.description,
        alwaysApply: r.alwaysApply,
      })),
    ).toEqual([
      { name: "bom", content: "BOM rule.", globs: [], description: "with BOM", alwaysApply: true },
      { name: "cr", content: "Old Mac rule.", globs: ["lib/**"], description: undefined, alwaysApply: undefined },
      {
        name: "crlf",
        content: "Windows rule.\nSecond line.",
        globs: ["src/**/*.ts"],
        description: undefined,
        alwaysApply: undefined,
      },
    ]);
  });

  test("many bad files at once: each gets its own warning and the good ones load", async () => {
    await writeTree(box.projectDir, {
      ...GOOD,
      ...Object.fromEntries(cases.map(([file, content]) => [file, content])),
    });
    const { rules, warnings } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings.map((w) => w.path).sort()).toEqual(cases.map(([file]) => join(box.projectDir, file)).sort());
  });

  test("enabled: false hides a rule without a warning", async () => {
    await writeTree(box.projectDir, { ...GOOD, "off.md": "---\nenabled: false\n---\nHidden." });
    const { rules, warnings } = await discover();
    expect(rules.map((r) => r.name)).toEqual(["good", "zz-last"]);
    expect(warnings).toEqual([]);
  });

  test("many files (more than are read at once) all load, in order", async () => {
    const many = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`r${String(i).padStart(3, "0")}.md`, `Rule ${i}.`]),
    );
    await writeTree(box.projectDir, many);
    const { rules } = await discover();
    expect(rules.map((r) => r.content)).toEqual(Array.from({ length: 80 }, (_, i) => `Rule ${i}.`));
  });
});
