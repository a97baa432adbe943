/**
 * Kilo Code and Roo Code (formats/kilo.ts, roo.ts, modes.ts): rules folders
 * in the home and at each project level, every file in them; the legacy
 * files only when no folder has a rule; a `rules-{mode}` folder or legacy
 * `-{mode}` file scoped to the mode's OpenCode agent. Fixtures from Roo's
 * source (custom-instructions.ts) and Kilo's custom-rules documentation.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { foldersToWatch, rulePlaces } from "../../src/discover/watch.js";
import { agentOfMode, MODE_AGENTS } from "../../src/formats/modes.js";
import { rooSource } from "../../src/formats/roo.js";
import { type Box, loadSource, useBox } from "../support/formats.js";

let box: Box;
useBox((made) => (box = made));

async function rulesOf(source: string, overrides = {}) {
  const loaded = await loadSource(box, source, overrides);
  const rules = loaded.rules.map((rule) => [
    rule.scope,
    rule.name,
    rule.toolType,
    rule.conditions.agents ?? null,
    rule.content,
  ]);
  return { ...loaded, list: rules };
}

describe("modes → agents", () => {
  test("code works as build, architect as plan, any other mode by its own name", () => {
    expect([...MODE_AGENTS]).toEqual([
      ["code", "build"],
      ["architect", "plan"],
    ]);
    expect(["code", "architect", "debug", "ask", "my-mode"].map(agentOfMode)).toEqual([
      "build",
      "plan",
      "debug",
      "ask",
      "my-mode",
    ]);
  });

  test("a mode named like an object's built-in member is a mode of that name (own keys only)", () => {
    expect(["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"].map(agentOfMode)).toEqual([
      "constructor",
      "toString",
      "__proto__",
      "hasOwnProperty",
      "valueOf",
    ]);
  });
});

describe("Roo Code", () => {
  test("~/.roo/rules and .roo/rules: every file, sub-folders too, but cache and system files; always on", async () => {
    await box.write(join(box.home, ".roo", "rules"), { "mine.md": "Mine." });
    await box.write(join(box.project, ".roo", "rules"), {
      "style.md": "Style.",
      "notes.txt": "Notes.",
      "deep/db.md": "Db.",
      "x.log": "log",
      "old.tmp": "tmp",
      ".DS_Store": "ds",
    });
    const { list, warnings } = await rulesOf("roo");
    expect(warnings).toEqual([]);
    expect(list).toEqual([
      ["global", "mine", "always", null, "Mine."],
      ["project", "deep/db", "always", null, "Db."],
      ["project", "notes.txt", "always", null, "Notes."],
      ["project", "style", "always", null, "Style."],
    ]);
  });

  test("rules-{mode} folders (home and project) reach only the mode's agent; list shows mode: {mode}", async () => {
    await box.write(join(box.home, ".roo", "rules-debug"), { "trace.md": "Trace." });
    await box.write(join(box.project, ".roo"), {
      "rules-architect/plan.md": "Plan.",
      "rules-code/tests.md": "Tests.",
      "rules-docs-writer/tone.md": "Tone.",
    });
    const { list } = await rulesOf("roo");
    expect(list).toEqual([
      ["global", "rules-debug/trace", "mode: debug", ["debug"], "Trace."],
      ["project", "rules-architect/plan", "mode: architect", ["plan"], "Plan."],
      ["project", "rules-code/tests", "mode: code", ["build"], "Tests."],
      ["project", "rules-docs-writer/tone", "mode: docs-writer", ["docs-writer"], "Tone."],
    ]);
  });

  test(".roorules only when no rules folder has a file; a .roorules-{mode} only when no rules-{mode} folder has one", async () => {
    await box.write(box.project, {
      ".roorules": "Legacy.",
      ".roorules-architect": "Legacy plan.",
      ".roorules-code": "Legacy code.",
      ".roo/rules-code/new.md": "New code.",
    });
    const { list } = await rulesOf("roo");
    expect(list).toEqual([
      ["project", "roorules", "always", null, "Legacy."],
      ["project", "roorules-architect", "mode: architect", ["plan"], "Legacy plan."],
      ["project", "rules-code/new", "mode: code", ["build"], "New code."],
    ]);
    await box.write(join(box.home, ".roo", "rules"), { "g.md": "Global." });
    const again = await rulesOf("roo");
    // A rules folder anywhere (the home's too) has a rule: Roo reads no .roorules.
    expect(again.list.map((rule) => rule[1])).toEqual(["g", "roorules-architect", "rules-code/new"]);
  });

  test(".clinerules-{mode} is Roo's last fallback for a mode; .clinerules stays Cline's", async () => {
    await box.write(box.project, {
      ".clinerules-debug": "Cline debug.",
      ".clinerules": "Cline's own.",
      ".roorules-ask": "Ask.",
      ".clinerules-ask": "Not read: .roorules-ask is.",
    });
    const { list } = await rulesOf("roo");
    expect(list).toEqual([
      ["project", "clinerules-debug", "mode: debug", ["debug"], "Cline debug."],
      ["project", "roorules-ask", "mode: ask", ["ask"], "Ask."],
    ]);
  });

  test("every project level's .roo, named by its folder; the front matter is text Roo does not read (warned, always on)", async () => {
    const pkg = join(box.project, "packages", "app");
    await box.write(box.project, {
      ".roo/rules/root.md": "Root.",
      "packages/app/.roo/rules/app.md": "---\nglobs: src/**\n---\nApp.",
    });
    const { list, warnings } = await rulesOf("roo", { directory: pkg });
    expect(list.map((rule) => rule.slice(1, 3))).toEqual([
      ["packages/app/app", "always"],
      ["root", "always"],
    ]);
    expect(warnings.map((w) => [w.code, w.path, "line" in w ? w.line : undefined])).toEqual([
      ["key-ignored-by-tool", join(pkg, ".roo/rules/app.md"), 2],
    ]);
  });

  test("a rules-{mode} folder that is a symlink out of the repository is refused with a warning", async () => {
    const outside = join(box.root, "outside");
    await box.write(outside, { "secret.md": "Secret." });
    await box.link(outside, join(box.project, ".roo", "rules-code"));
    const { list, warnings } = await rulesOf("roo");
    expect(list).toEqual([]);
    expect(warnings.map((w) => w.code)).toEqual(["outside-repository"]);
  });

  test("rules-constructor, rules-toString, rules-__proto__ and their legacy files: modes of those names, without a warning", async () => {
    await box.write(join(box.project, ".roo"), {
      "rules-constructor/a.md": "Ctor.",
      "rules-toString/b.md": "ToString.",
      "rules-__proto__/c.md": "Proto.",
    });
    await box.write(box.project, { ".roorules-valueOf": "ValueOf.", ".clinerules-hasOwnProperty": "Own." });
    const { list, warnings } = await rulesOf("roo");
    expect(warnings).toEqual([]);
    expect(list).toEqual([
      ["project", "clinerules-hasOwnProperty", "mode: hasOwnProperty", ["hasOwnProperty"], "Own."],
      ["project", "roorules-valueOf", "mode: valueOf", ["valueOf"], "ValueOf."],
      ["project", "rules-__proto__/c", "mode: __proto__", ["__proto__"], "Proto."],
      ["project", "rules-constructor/a", "mode: constructor", ["constructor"], "Ctor."],
      ["project", "rules-toString/b", "mode: toString", ["toString"], "ToString."],
    ]);
  });

  test("the watcher's layout: the rules folder, the legacy files of the built-in modes", () => {
    expect(rooSource.layout?.folders).toEqual([".roo/rules"]);
    expect(rooSource.layout?.files).toContain(".roorules-architect");
    expect(rooSource.layout?.files).toContain(".clinerules-code");
    // `.roo` itself is watched whole: a new `.roo/rules-{mode}` folder is seen.
    const watched = foldersToWatch([], ["/p"], [], rulePlaces([rooSource.layout ?? { folders: [], files: [] }]));
    expect(watched.folders).toContain("/p/.roo");
    expect(watched.filters.has("/p/.roo")).toBe(false);
  });
});

describe("Kilo Code", () => {
  test("~/.kilocode/rules and .kilocode/rules: every file; rules-{mode} at the project level only", async () => {
    await box.write(join(box.home, ".kilocode"), {
      "rules/mine.md": "Mine.",
      "rules-code/ignored.md": "Not read: project level only.",
    });
    await box.write(join(box.project, ".kilocode"), {
      "rules/formatting.md": "Fmt.",
      "rules/list.txt": "Txt.",
      "rules-architect/plan.md": "Plan.",
    });
    const { list } = await rulesOf("kilo");
    expect(list).toEqual([
      ["global", "mine", "always", null, "Mine."],
      ["project", "formatting", "always", null, "Fmt."],
      ["project", "list.txt", "always", null, "Txt."],
      ["project", "rules-architect/plan", "mode: architect", ["plan"], "Plan."],
    ]);
  });

  test(".kilocoderules and .kilocoderules-{mode}: fallbacks when the folders have no rule for them", async () => {
    await box.write(box.project, {
      ".kilocoderules": "Legacy.",
      ".kilocoderules-code": "Legacy code.",
      ".kilocoderules-ask": "Not read.",
      ".kilocode/rules-ask/a.md": "Ask.",
    });
    const { list } = await rulesOf("kilo");
    expect(list.map((rule) => rule.slice(1, 4))).toEqual([
      ["kilocoderules", "always", null],
      ["kilocoderules-code", "mode: code", ["build"]],
      ["rules-ask/a", "mode: ask", ["ask"]],
    ]);
  });

  test("rules-constructor, rules-toString, rules-__proto__ and .kilocoderules-constructor: modes of those names, without a warning", async () => {
    await box.write(join(box.project, ".kilocode"), {
      "rules-toString/b.md": "ToString.",
      "rules-__proto__/c.md": "Proto.",
    });
    await box.write(box.project, { ".kilocoderules-constructor": "Ctor." });
    const { list, warnings } = await rulesOf("kilo");
    expect(warnings).toEqual([]);
    expect(list).toEqual([
      ["project", "kilocoderules-constructor", "mode: constructor", ["constructor"], "Ctor."],
      ["project", "rules-__proto__/c", "mode: __proto__", ["__proto__"], "Proto."],
      ["project", "rules-toString/b", "mode: toString", ["toString"], "ToString."],
    ]);
  });

  test("Roo's files are not Kilo's: .roo and .roorules stay with the roo source", async () => {
    await box.write(box.project, { ".roo/rules/r.md": "R.", ".roorules": "RR." });
    expect((await rulesOf("kilo")).list).toEqual([]);
  });
});
