/**
 * The parse cache (discover/parse-cache.ts, parse-cache-file.ts): a start
 * after the first reads no rule file that has not changed, loads the same
 * rules with the same warnings, and never keeps a parse across a change.
 */
import { chmod, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import type { DiscoveryContext } from "../../src/discover/discover.js";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";
import { fileParseCache, MAX_PROJECTS, parseCacheFolder } from "../../src/discover/parse-cache-file.js";
import { SETTLED_AFTER_MS, type ParseCacheEntries } from "../../src/discover/parse-cache.js";
import { loadRules } from "../../src/formats/load.js";
import { createLogger } from "../../src/log.js";
import { makeRule } from "../support/rules.js";
import { MAX_RULE_BYTES, type Sandbox, sandbox } from "../support/sandbox.js";
import { tempTree } from "../support/temp-folder.js";

const ALL_FORMATS = fileURLToPath(new URL("../fixtures/all-formats", import.meta.url));
let box: Sandbox;
afterEach(() => box?.cleanup());

/** The real file system, counting the rule files read. */
function countingFs(): RuleFs & { reads: string[] } {
  const reads: string[] = [];
  const readFile: RuleFs["readFile"] = (path, maxBytes, size) => {
    reads.push(path);
    return nodeRuleFs.readFile(path, maxBytes, size);
  };
  return { ...nodeRuleFs, reads, readFile };
}

function logged() {
  const lines: string[] = [];
  return { lines, log: createLogger(async (level, message) => void lines.push(`${level}: ${message}`), true) };
}

/** A load as the engine does it, the files' last change `ageMs` ago from its point of view. */
const load = (context: DiscoveryContext, cache?: ParseCacheEntries, ageMs = SETTLED_AFTER_MS + 1000) =>
  loadRules({ ...context, parseCache: cache ? Promise.resolve(cache) : undefined, now: () => Date.now() + ageMs });

/** What a user sees of a load: the rules, shadowed rules and warnings. */
const seen = (loaded: Awaited<ReturnType<typeof loadRules>>) => ({
  rules: loaded.rules,
  shadowed: loaded.shadowed,
  warnings: loaded.warnings,
});

describe("parse cache: what a later start reads", () => {
  test("every format's rules come back the same from the cache file, without reading the rule files again", async () => {
    const tree = await tempTree("rulebook-cache-", { copy: ALL_FORMATS });
    box = {
      ...tree,
      context: (fs = nodeRuleFs) => ({
        env: {},
        home: tree.home,
        directory: tree.project,
        worktree: tree.project,
        fs,
        maxRuleBytes: MAX_RULE_BYTES,
      }),
    };
    await tree.write(tree.projectRules, {
      "bad.md": "---\nglobs: [unclosed\n---\nBroken.",
      "odd.md": "---\ncolour: blue\n---\nUnknown key.",
    });
    const { log } = logged();
    const folder = join(tree.root, "cache");
    const store = () =>
      fileParseCache({
        folder,
        project: { worktree: tree.project, directory: tree.project },
        log,
        build: Promise.resolve("test-build"),
        saveDelayMs: 0,
      });

    const first = await load(box.context());
    expect(first.rules.length).toBeGreaterThan(5);
    await store().save(first.parses ?? new Map());
    const fs = countingFs();
    const second = await loadRules({
      ...box.context(fs),
      parseCache: store().load(),
      now: () => Date.now() + SETTLED_AFTER_MS + 1000,
    });

    expect(seen(second)).toEqual(seen(first));
    // Only the files rules include are read (CLAUDE.md's `@docs/…`): they may change without their rule file changing.
    expect(fs.reads.length).toBeGreaterThan(0);
    expect(fs.reads.filter((path) => !second.references.includes(path))).toEqual([]);
    expect(second.files.filter((file) => fs.reads.includes(file.path))).toEqual([]);
    const written = (await readdir(folder)).filter((name) => name.endsWith(".json"));
    expect(written).toHaveLength(1);
    if (process.platform !== "win32") expect((await stat(join(folder, written[0] as string))).mode & 0o777).toBe(0o600);
  });

  test("a rule file rewritten with the same size and its modification time set back is read again", async () => {
    box = await sandbox();
    const [path] = await box.write(box.projectRules, { "style.md": "Use tabs." });
    const first = await load(box.context());
    const before = await stat(path as string);
    await writeFile(path as string, "Use cats.");
    await utimes(path as string, before.atime, before.mtime);
    const fs = countingFs();
    const second = await load(box.context(fs), first.parses);
    expect(fs.reads).toEqual([path]);
    expect(second.rules[0]?.content).toBe("Use cats.");
  });

  test("a file changed in the last few seconds is not kept: a second write in the same clock tick could not be told apart", async () => {
    box = await sandbox();
    await box.write(box.projectRules, { "style.md": "Use tabs." });
    const fresh = await load(box.context(), undefined, 0);
    expect(fresh.parses?.size).toBe(0);
    const settled = await load(box.context(), undefined, SETTLED_AFTER_MS + 1000);
    expect(settled.parses?.size).toBe(1);
  });

  test("a parse made for another reading (a smaller size limit) is not used", async () => {
    box = await sandbox();
    await box.write(box.projectRules, { "style.md": "Use tabs, always, in every file." });
    const first = await load(box.context());
    const fs = countingFs();
    const smaller = await load({ ...box.context(fs), maxRuleBytes: 10 }, first.parses);
    expect(smaller.rules).toEqual([]);
    expect(smaller.warnings.map((warning) => warning.code)).toEqual(["rule-too-large"]);
  });
});

describe("parse cache file: trusted, bounded, never in the way", () => {
  const project = { worktree: "/work/p", directory: "/work/p" };
  const entries = (count: number): ParseCacheEntries =>
    new Map(
      Array.from({ length: count }, (_, i) => [
        `/work/p/.opencode/rules/r${i}.md`,
        {
          stamp: `1:${i}:9:1:1`,
          context: "[]",
          parsed: {
            warnings: [],
            rule: makeRule({ name: "r", path: `/work/p/.opencode/rules/r${i}.md`, displayPath: "r.md", content: "R." }),
          },
        },
      ]),
    );

  test("is in OpenCode's cache folder: $XDG_CACHE_HOME/opencode, else ~/.cache/opencode", () => {
    expect(parseCacheFolder({ XDG_CACHE_HOME: "/x/cache" }, "/home/u")).toBe(join("/x/cache", "opencode", "rulebook"));
    expect(parseCacheFolder({}, "/home/u")).toBe(join("/home/u", ".cache", "opencode", "rulebook"));
  });

  test("a file of another build, cut short, or others may write is not used; a bad entry is dropped, the others kept", async () => {
    box = await sandbox();
    const folder = join(box.root, "cache");
    const { lines, log } = logged();
    const store = (build: string) =>
      fileParseCache({ folder, project, log, build: Promise.resolve(build), saveDelayMs: 0 });
    await store("one").save(entries(3));
    expect((await store("one").load()).size).toBe(3);
    expect((await store("two").load()).size).toBe(0);
    const [name] = await readdir(folder);
    const file = join(folder, name as string);
    const text = await readFile(file, "utf8");
    const edited = text.replace('"1:1:9:1:1"', "11911");
    expect(edited).not.toBe(text);
    await writeFile(file, edited);
    expect([...(await store("one").load()).keys()]).toEqual([
      "/work/p/.opencode/rules/r0.md",
      "/work/p/.opencode/rules/r2.md",
    ]);
    await writeFile(file, text.slice(0, text.length / 2));
    expect((await store("one").load()).size).toBe(0);
    if (process.platform !== "win32") {
      await writeFile(file, text);
      await chmod(file, 0o666);
      expect((await store("one").load()).size).toBe(0);
      await log.flush();
      expect(lines.join("\n")).toMatch(/not used: other users may write it/);
      await chmod(folder, 0o777);
      await store("one").save(entries(1));
      await log.flush();
      expect(lines.join("\n")).toMatch(/not written to .*: other users may write it/);
    }
  });

  test("a cache folder that does not answer is given up after its wait, and the rules are read from their files", async () => {
    const { lines, log } = logged();
    const hung = fileParseCache({
      folder: "/nowhere",
      project,
      log,
      build: Promise.resolve("b"),
      read: () => new Promise(() => {}),
      loadWaitMs: 20,
    });
    expect((await hung.load()).size).toBe(0);
    await log.flush();
    expect(lines.join("\n")).toMatch(/was not read within 20 ms; rules are read from their files/);
  });

  test(`keeps the ${MAX_PROJECTS} projects written last`, async () => {
    box = await sandbox();
    const folder = join(box.root, "cache");
    const { log } = logged();
    for (let i = 0; i <= MAX_PROJECTS + 1; i++) {
      await fileParseCache({
        folder,
        project: { worktree: `/p${i}`, directory: `/p${i}` },
        log,
        build: Promise.resolve("b"),
        saveDelayMs: 0,
      }).save(entries(1));
    }
    expect((await readdir(folder)).filter((name) => name.endsWith(".json"))).toHaveLength(MAX_PROJECTS);
  });
});
