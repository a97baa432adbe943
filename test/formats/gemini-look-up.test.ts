/**
 * Gemini CLI's sub-folder `GEMINI.md` ("just-in-time" context files), found
 * as Gemini CLI finds them: by looking up from each file or folder a tool
 * touches to the project root (discover/look-up.ts, formats/looked-up.ts),
 * hidden and git-ignored folders included, never by a search ahead. Fixtures
 * from geminicli.com/docs/cli/gemini-md ("When a tool accesses a file or
 * directory, the CLI automatically scans for GEMINI.md files in that
 * directory and its ancestors").
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test, vi } from "vitest";
import { globsOf } from "../../src/conditions/files.js";
import { LOOK_UP_LIMITS, lookUp } from "../../src/discover/look-up.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { LOOK_UP_WAIT_MS, startLiveRules } from "../../src/formats/live-rules.js";
import { sourcesRead } from "../../src/formats/load.js";
import { createLogger } from "../../src/log.js";
import { sourceLookUps } from "../../src/formats/looked-up.js";
import type { Rule } from "../../src/rule/rule.js";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, useBox } from "../support/formats.js";

let box: Box;
useBox((made) => (box = made));

const row = (rule: Rule) => [rule.name, rule.toolType, activationOf(rule), globsOf(rule)];

/** The Gemini rules a session has once it touched `touched` (project-relative). */
async function afterTouching(touched: string[], directory = box.project) {
  const context = box.context({ directory });
  const lookUps = sourceLookUps(context, sourcesRead({ sources: ["gemini"] }));
  const found = await lookUps.from(touched.map((path) => join(box.project, path)));
  const loaded = await box.load({ sources: ["gemini"] }, { directory, lookedUp: lookUps.folders });
  return { found, rules: loaded.rules.map(row), warnings: loaded.warnings };
}

describe("a sub-folder's GEMINI.md, looked up from the files a tool touches", () => {
  test("nothing is found ahead: a sub-folder's file applies only once a file under it is touched", async () => {
    await box.write(box.project, { "src/api/GEMINI.md": "Api.", "src/api/users.ts": "", "src/web/page.ts": "" });
    expect((await afterTouching([])).rules).toEqual([]);
    expect((await afterTouching(["src/web/page.ts"])).rules).toEqual([]);
    const touched = await afterTouching(["src/api/users.ts"]);
    expect(touched.found).toBe(true);
    expect(touched.rules).toEqual([["src/api/GEMINI", "JIT context", "conditional", ["src/api/**"]]]);
  });

  test("every folder from the file up to the root: two levels at once, the outer first", async () => {
    await box.write(box.project, {
      "pkg/GEMINI.md": "Pkg.",
      "pkg/a/b/GEMINI.md": "B.",
      "pkg/a/b/c/d.ts": "",
    });
    expect((await afterTouching(["pkg/a/b/c/d.ts"])).rules).toEqual([
      ["pkg/GEMINI", "JIT context", "conditional", ["pkg/**"]],
      ["pkg/a/b/GEMINI", "JIT context", "conditional", ["pkg/a/b/**"]],
    ]);
  });

  test("hidden and git-ignored folders are looked in, as Gemini CLI does", async () => {
    await box.write(box.project, {
      ".github/GEMINI.md": "Workflows.",
      ".github/workflows/ci.yml": "",
      "generated/GEMINI.md": "Generated code.",
      "generated/api.ts": "",
      ".gitignore": "generated/\n",
    });
    expect((await afterTouching([".github/workflows/ci.yml", "generated/api.ts"])).rules).toEqual([
      [".github/GEMINI", "JIT context", "conditional", [".github/**"]],
      ["generated/GEMINI", "JIT context", "conditional", ["generated/**"]],
    ]);
  });

  test("a touched folder is looked up from itself; a file not written yet, from its nearest folder", async () => {
    await box.write(box.project, { "lib/GEMINI.md": "Lib.", "docs/GEMINI.md": "Docs." });
    expect((await afterTouching(["lib", "docs/new/page.md"])).rules.map((rule) => rule[0])).toEqual([
      "docs/GEMINI",
      "lib/GEMINI",
    ]);
  });

  test("the levels from the root to the directory stay always on; only folders below the directory are looked up", async () => {
    await box.write(box.project, {
      "GEMINI.md": "Root.",
      "app/GEMINI.md": "App.",
      "app/x/GEMINI.md": "X.",
      "app/x/y.ts": "",
    });
    const { rules } = await afterTouching(["app/x/y.ts"], join(box.project, "app"));
    expect(rules).toEqual([
      ["GEMINI", "always", "always", []],
      ["app/GEMINI", "always", "always", []],
      ["app/x/GEMINI", "JIT context", "conditional", ["app/x/**"]],
    ]);
  });

  test("outside the project, or through a symlink out of it, nothing is looked up", async () => {
    const outside = join(box.root, "elsewhere");
    await box.write(outside, { "GEMINI.md": "Not the repository's.", "sub/GEMINI.md": "No.", "sub/f.ts": "" });
    await box.link(join(outside, "sub"), join(box.project, "vendor"));
    const { rules, found } = await afterTouching(["vendor/f.ts", "../elsewhere/sub/f.ts"]);
    expect(found).toBe(false);
    expect(rules).toEqual([]);
  });

  test("a symlinked folder inside the project is looked up by its real path", async () => {
    await box.write(box.project, { "packages/a/GEMINI.md": "A.", "packages/a/i.ts": "" });
    await box.link(join(box.project, "packages", "a"), join(box.project, "a-link"));
    expect((await afterTouching(["a-link/i.ts"])).rules.map((rule) => rule[0])).toEqual(["packages/a/GEMINI"]);
  });

  test("a GEMINI.md that links out of the project is refused with a warning", async () => {
    const outside = join(box.root, "secret.md");
    await box.write(box.root, { "secret.md": "Secret." });
    await box.write(box.project, { "src/x.ts": "" });
    await box.link(outside, join(box.project, "src", "GEMINI.md"));
    const { rules, warnings } = await afterTouching(["src/x.ts"]);
    expect(rules).toEqual([]);
    expect(warnings.map((warning) => warning.code)).toEqual(["outside-repository"]);
  });
});

describe("in the running plugin (formats/live-rules.ts)", () => {
  const quiet = createLogger(async () => undefined, false);

  test("a look-up that finds a GEMINI.md is loaded at the next refresh; one that finds nothing reloads nothing", async () => {
    await box.write(box.project, { "src/api/GEMINI.md": "Api.", "src/api/a.ts": "", "src/web/w.ts": "" });
    const live = await startLiveRules(box.context(), { sources: ["gemini"] }, quiet);
    try {
      expect(live.current().rules).toEqual([]);
      await live.lookUp([join(box.project, "src/web/w.ts")]);
      expect(await live.refresh()).toBeUndefined();
      void live.lookUp([join(box.project, "src/api/a.ts")]);
      // Not awaited: the refresh waits for the look-up under way.
      expect(await live.refresh()).toEqual({ changed: [], removed: [] });
      expect(live.current().rules.map((rule) => rule.name)).toEqual(["src/api/GEMINI"]);
    } finally {
      live.close();
    }
  });

  test("a look-up stuck on a hung mount holds a refresh for LOOK_UP_WAIT_MS at most, and never a later one", async () => {
    await box.write(box.project, { "slow/GEMINI.md": "Slow.", "slow/s.ts": "" });
    const hung = {
      ...nodeRuleFs,
      realpath: (path: string) => (path.includes("slow") ? new Promise<string>(() => {}) : nodeRuleFs.realpath(path)),
    };
    const live = await startLiveRules(box.context({ fs: hung }), { sources: ["gemini"] }, quiet);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      void live.lookUp([join(box.project, "slow/s.ts")]);
      let done = false;
      const refreshed = live.refresh().then(() => (done = true));
      await vi.advanceTimersByTimeAsync(LOOK_UP_WAIT_MS - 10);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(20);
      await refreshed;
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
      live.close();
    }
  });
});

describe("the look-up's bounds and memory", () => {
  const counting = () => {
    const calls: string[] = [];
    const fs = {
      stat: (path: string) => {
        calls.push(`stat ${path}`);
        return nodeRuleFs.stat(path);
      },
      realpath: (path: string) => {
        calls.push(`realpath ${path}`);
        return nodeRuleFs.realpath(path);
      },
    };
    return { fs, calls };
  };
  /** A look-up for GEMINI.md in the project, below its root, through `fs`. */
  const inProject = (fs: Pick<typeof nodeRuleFs, "stat" | "realpath">) => ({
    fs,
    root: box.project,
    realRoot: nodeRuleFs.realpath(box.project),
    below: box.project,
    fileName: "GEMINI.md",
  });

  test("each folder is checked once: a second file in the same folders costs no file system call", async () => {
    await box.write(box.project, { "a/b/one.ts": "", "a/b/two.ts": "", "a/GEMINI.md": "A." });
    const { fs, calls } = counting();
    let clock = 0;
    const look = lookUp({ ...inProject(fs), now: () => clock });
    expect(await look.from([join(box.project, "a/b/one.ts")])).toBe(true);
    const first = calls.length;
    expect(await look.from([join(box.project, "a/b/one.ts")])).toBe(false);
    expect(calls.length).toBe(first);
    // Another file: only its own path is resolved; the folders are known.
    await look.from([join(box.project, "a/b/two.ts")]);
    expect(calls.filter((call) => call.endsWith("GEMINI.md")).length).toBe(2);
    // A folder seen without the file is checked again after a while: a GEMINI.md made mid-session is found.
    await box.write(box.project, { "a/b/GEMINI.md": "B." });
    expect(await look.from([join(box.project, "a/b/two.ts")])).toBe(false);
    clock += 10_000;
    expect(await look.from([join(box.project, "a/b/two.ts")])).toBe(true);
    expect(look.folders()).toEqual([join(box.project, "a"), join(box.project, "a/b")]);
  });

  test("odd paths from a careless model: a NUL, a 10,000-character path, a relative one; nothing found, no throw, few calls", async () => {
    await box.write(box.project, { "a/GEMINI.md": "A." });
    const { fs, calls } = counting();
    const look = lookUp(inProject(fs));
    const long = join(box.project, "a", `${"x/".repeat(5_000)}f.ts`);
    expect(await look.from([join(box.project, "a\0b.ts"), long, "a/f.ts", ""])).toBe(false);
    // The long path: the path itself, its folder, then at most maxDepth folders up, each once.
    expect(calls.length).toBeLessThanOrEqual(4 * (LOOK_UP_LIMITS.maxDepth + 2));
    expect(look.folders()).toEqual([]);
    // A relative path is never read from the process's own folder, even one inside the project.
    const cwd = process.cwd();
    process.chdir(box.project);
    try {
      expect(await look.from(["a/f.ts"])).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });

  test("at most maxPaths paths a call, maxDepth folders a path and maxFound folders in all", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`f${i}/GEMINI.md`] = `${i}`;
    files["d1/d2/d3/d4/GEMINI.md"] = "deep";
    await box.write(box.project, files);
    await mkdir(join(box.project, "d1/d2/d3/d4/d5"), { recursive: true });
    const place = inProject(nodeRuleFs);
    const few = lookUp({ ...place, limits: { maxPaths: 2, maxFound: 3 } });
    await few.from([0, 1, 2].map((i) => join(box.project, `f${i}`, "x.ts")));
    expect(few.folders()).toEqual([join(box.project, "f0"), join(box.project, "f1")]);
    await few.from([3, 4].map((i) => join(box.project, `f${i}`, "x.ts")));
    expect(few.folders()).toHaveLength(3);
    const shallow = lookUp({ ...place, limits: { maxDepth: 1 } });
    expect(await shallow.from([join(box.project, "d1/d2/d3/d4/d5")])).toBe(false);
    const deeper = lookUp({ ...place, limits: { maxDepth: 2 } });
    expect(await deeper.from([join(box.project, "d1/d2/d3/d4/d5")])).toBe(true);
  });
});
