/**
 * The parse cache across starts, through its file (discover/parse-cache-file.ts):
 * whatever changed between two starts, the second loads what the files say
 * now, never a parse kept from before the change.
 */
import { readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";
import { fileParseCache } from "../../src/discover/parse-cache-file.js";
import { parsesDiffer, SETTLED_AFTER_MS } from "../../src/discover/parse-cache.js";
import { loadRules } from "../../src/formats/load.js";
import { createLogger } from "../../src/log.js";
import { type Sandbox, sandbox } from "../support/sandbox.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

/** The real file system, counting the files read. */
function countingFs(): RuleFs & { reads: string[] } {
  const reads: string[] = [];
  return {
    ...nodeRuleFs,
    reads,
    readFile: (path, maxBytes, size) => {
      reads.push(path);
      return nodeRuleFs.readFile(path, maxBytes, size);
    },
  };
}

/**
 * One start as the engine makes it: the parses kept in the cache file, the load, the parses written back when they
 * changed. The rule files count as settled (written more than SETTLED_AFTER_MS ago).
 */
async function start(build = "build-1") {
  const store = fileParseCache({
    folder: join(box.root, "cache"),
    project: { worktree: box.project, directory: box.project },
    log: createLogger(async () => undefined, false),
    build: Promise.resolve(build),
    saveDelayMs: 0,
  });
  const kept = await store.load();
  const fs = countingFs();
  const loaded = await loadRules({
    ...box.context(fs),
    parseCache: Promise.resolve(kept),
    now: () => Date.now() + SETTLED_AFTER_MS + 1000,
  });
  if (parsesDiffer(kept, loaded.parses ?? new Map())) await store.save(loaded.parses ?? new Map());
  const rules = Object.fromEntries(loaded.rules.map((rule) => [rule.name, rule.content]));
  return { rules, reads: fs.reads, kept: kept.size };
}

/** The one cache file the starts wrote. */
async function cacheFile(): Promise<string> {
  const folder = join(box.root, "cache");
  const [name] = (await readdir(folder)).filter((entry) => entry.endsWith(".json"));
  return join(folder, name as string);
}

describe("parse cache across starts: a change between two starts is always seen", () => {
  test("an unchanged project: the second start reads no rule file, and loads the same rules", async () => {
    box = await sandbox();
    await box.write(box.projectRules, { "a.md": "Rule A.", "sub/b.md": "---\nglobs: src/**\n---\nRule B." });
    const first = await start();
    const second = await start();
    expect(second.kept).toBe(2);
    expect(second.reads).toEqual([]);
    expect(second.rules).toEqual(first.rules);
  });

  test("a rule file edited to the same size, its modification time set back, is read again", async () => {
    box = await sandbox();
    const [path] = await box.write(box.projectRules, { "style.md": "Use tabs." });
    await start();
    const before = await stat(path as string);
    await writeFile(path as string, "Use cats.");
    await utimes(path as string, before.atime, before.mtime);
    const second = await start();
    expect(second.reads).toEqual([path]);
    expect(second.rules).toEqual({ style: "Use cats." });
  });

  test("a rule file removed is gone; one added to a folder already read is found", async () => {
    box = await sandbox();
    const [gone] = await box.write(box.projectRules, { "gone.md": "Gone.", "stays.md": "Stays." });
    await start();
    await rm(gone as string);
    const [added] = await box.write(join(box.projectRules, "sub"), { "added.md": "Added." });
    const second = await start();
    expect(second.rules).toEqual({ stays: "Stays.", "sub/added": "Added." });
    expect(second.reads).toEqual([added]);
  });

  test("a rules folder that appears in the project, and a nested .cursor/rules in a folder walked before, are found", async () => {
    box = await sandbox();
    await box.write(box.projectRules, { "a.md": "Rule A." });
    await box.write(join(box.project, "packages/app"), { "index.ts": "export {};" });
    await start();
    const [root] = await box.write(join(box.project, ".cursor/rules"), {
      "root.mdc": "---\nalwaysApply: true\n---\nRoot.",
    });
    const [nested] = await box.write(join(box.project, "packages/app/.cursor/rules"), {
      "nested.mdc": "---\nalwaysApply: true\n---\nNested.",
    });
    const second = await start();
    expect(second.rules).toMatchObject({ a: "Rule A.", root: "Root.", "packages/app/nested": "Nested." });
    expect([...second.reads].sort()).toEqual([nested, root].sort());
  });

  test("a cache written by another build is not used: every rule file is read", async () => {
    box = await sandbox();
    const paths = await box.write(box.projectRules, { "a.md": "Rule A.", "b.md": "Rule B." });
    await start("build-1");
    const other = await start("build-2");
    expect(other.kept).toBe(0);
    expect([...other.reads].sort()).toEqual([...paths].sort());
    expect(other.rules).toEqual({ a: "Rule A.", b: "Rule B." });
  });

  test("a damaged cache file (cut short, texts cut, garbage, an older format) is not used, and the rules load as written", async () => {
    box = await sandbox();
    const paths = await box.write(box.projectRules, { "a.md": "Rule A.", "b.md": "Rule B." });
    await start();
    const file = await cacheFile();
    const text = await readFile(file, "utf8");
    const damaged = [
      text.slice(0, text.length / 2),
      text.slice(0, -2),
      `${text}more`,
      "\u0000\u0001not json\n",
      JSON.stringify({ format: 2, entries: [] }),
    ];
    for (const bytes of damaged) {
      await writeFile(file, bytes);
      const again = await start();
      expect(again.kept, JSON.stringify(bytes.slice(0, 40))).toBe(0);
      expect([...again.reads].sort()).toEqual([...paths].sort());
      expect(again.rules).toEqual({ a: "Rule A.", b: "Rule B." });
    }
  });
});
