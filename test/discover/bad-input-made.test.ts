/**
 * Bad input made at test time (test/render/bad-input.test.ts has the
 * committed corpus): huge, many and deep rule files; links, devices and FIFOs.
 * The known good rule loads next to each.
 */
import { execFileSync } from "node:child_process";
import { mkdir, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { spyFs } from "../support/fake-fs.js";
import { MAX_RULE_BYTES, type Sandbox } from "../support/sandbox.js";
import { badInputSandbox, byPath } from "../support/bad-input.js";
import { shown } from "../support/shown-warnings.js";

let box: Sandbox;
const { withGood, expectGoodLoaded, load, inRules } = badInputSandbox((made) => (box = made));

describe("made at test time: size, number and depth", () => {
  test("a 100 MB rule file (sparse) is skipped by its size, never read", async () => {
    await withGood();
    const huge = inRules("huge.md");
    await writeFile(huge, "");
    await truncate(huge, 100 * 1024 * 1024);
    const fs = spyFs();
    const before = process.memoryUsage();
    const loaded = await load(fs);
    const after = process.memoryUsage();
    expect(shown(loaded.warnings)).toEqual([
      {
        path: huge,
        message: `the file is ${100 * 1024 * 1024} bytes, over the ${MAX_RULE_BYTES}-byte limit per rule; rule "huge" skipped without being read`,
      },
    ]);
    expectGoodLoaded(loaded);
    expect(loaded.rules.map((r) => r.name)).toEqual(["good"]);
    expect(fs.readFile.mock.calls.map(([path]) => path)).toEqual([inRules("good.md")]);
    // Nothing near 100 MB was allocated.
    expect(after.heapUsed - before.heapUsed).toBeLessThan(16 * 1024 * 1024);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
  });

  test("a file that claims to be small but is 100 MB when read is cut at the limit + 1 byte", async () => {
    await withGood();
    const huge = inRules("liar.md");
    await writeFile(huge, "");
    await truncate(huge, 100 * 1024 * 1024);
    // The walk saw it small (it grew after): readFile must still stop at maxRuleBytes + 1.
    const fs = spyFs({
      stat: async (path) => Object.assign(await nodeRuleFs.stat(path), path === huge ? { size: 10 } : {}),
    });
    const loaded = await load(fs);
    expect(shown(loaded.warnings)).toEqual([
      { path: huge, message: `the file is over the ${MAX_RULE_BYTES}-byte limit per rule; rule "liar" skipped` },
    ]);
    expectGoodLoaded(loaded);
    const read = await fs.readFile.mock.results.find((_r, i) => fs.readFile.mock.calls[i]?.[0] === huge)?.value;
    expect(read.byteLength).toBe(MAX_RULE_BYTES + 1);
  });

  test("10,000 rule files all load, each read once, without warnings", async () => {
    await withGood();
    const names = Array.from({ length: 10_000 }, (_, i) => `r${String(i).padStart(5, "0")}.md`);
    for (let i = 0; i < names.length; i += 500) {
      await Promise.all(
        names
          .slice(i, i + 500)
          .map((name, j) =>
            writeFile(
              inRules(name),
              (i + j) % 2
                ? `---\nglobs: src/m${i + j}/**\nkeywords: k${i + j}\n---\nRule ${i + j}.\n`
                : `Rule ${i + j}.\n`,
            ),
          ),
      );
    }
    const fs = spyFs();
    const loaded = await load(fs);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.rules).toHaveLength(10_001);
    expect(loaded.files).toHaveLength(10_001);
    expect(fs.readFile).toHaveBeenCalledTimes(10_001);
    expect(loaded.rules.find((r) => r.name === "r09999")).toMatchObject({
      content: "Rule 9999.",
      conditions: { files: ["src/m9999/**"], keywords: ["k9999"] },
    });
    expectGoodLoaded(loaded);
  }, 60_000);

  test("50-level deep folders: the rule at the bottom loads, named by its path", async () => {
    await withGood();
    const levels = Array.from({ length: 50 }, (_, i) => `level-${String(i + 1).padStart(2, "0")}`);
    await box.write(box.projectRules, { [`${levels.join("/")}/deep.md`]: "The deepest rule." });
    const loaded = await load();
    expect(loaded.warnings).toEqual([]);
    expect(loaded.rules.find((r) => r.name === `${levels.join("/")}/deep`)).toMatchObject({
      content: "The deepest rule.",
    });
    expectGoodLoaded(loaded);
  });

  test("folders deeper than the walk's limit (64): a warning where it stops; rules above load", async () => {
    await withGood();
    const levels = Array.from({ length: 70 }, (_, i) => `l${i + 1}`);
    await box.write(box.projectRules, {
      [`${levels.slice(0, 63).join("/")}/at-63.md`]: "Level 63.",
      [`${levels.join("/")}/at-70.md`]: "Level 70.",
    });
    const loaded = await load();
    expect(shown(loaded.warnings)).toEqual([
      {
        path: join(box.projectRules, ...levels.slice(0, 64)),
        message: "folders nested deeper than 64 levels; this branch was not read",
      },
    ]);
    expect(loaded.rules.map((r) => r.name).sort()).toEqual(["good", `${levels.slice(0, 63).join("/")}/at-63`]);
  });
});

describe("made at test time: links, devices and FIFOs", () => {
  test("a symlink loop to the rules folder itself ends that branch with a warning", async () => {
    await withGood();
    await symlink(box.projectRules, inRules("loop"));
    const loaded = await load();
    expect(shown(loaded.warnings)).toEqual([
      {
        path: inRules("loop"),
        message: `symlink loop: this folder leads back to ${box.projectRules}; the walk of this branch stopped here`,
      },
    ]);
    expect(loaded.rules.map((r) => r.name)).toEqual(["good"]);
  }, 5000);

  test("a symlink loop through a sub-folder, and two file links pointing at each other", async () => {
    await withGood();
    await box.write(box.projectRules, { "sub/inner.md": "Inner rule." });
    await symlink("..", inRules("sub/back"));
    await symlink("pong.md", inRules("ping.md"));
    await symlink("ping.md", inRules("pong.md"));
    const loaded = await load();
    expect(shown([...loaded.warnings].sort(byPath))).toEqual([
      { path: inRules("ping.md"), message: "cannot be read (ELOOP); skipped" },
      { path: inRules("pong.md"), message: "cannot be read (ELOOP); skipped" },
      {
        path: inRules("sub/back"),
        message: `symlink loop: this folder leads back to ${box.projectRules}; the walk of this branch stopped here`,
      },
    ]);
    expect(loaded.rules.map((r) => r.name).sort()).toEqual(["good", "sub/inner"]);
  }, 5000);

  test("a symlink to /dev/zero is never opened", async () => {
    await withGood();
    await symlink("/dev/zero", inRules("zero.md"));
    const fs = spyFs();
    const loaded = await load(fs);
    // Outside the repository, so refused before its type matters (the user's own folders: test/discover/walk.test.ts).
    expect(shown(loaded.warnings)).toEqual([
      {
        path: inRules("zero.md"),
        message: `leads through a symlink to /dev/zero, outside the repository (${box.project}); a repository's rule files are read only from inside it, so this file was skipped`,
      },
    ]);
    expect(fs.readFile.mock.calls.map(([path]) => path)).toEqual([inRules("good.md")]);
    expect(loaded.rules.map((r) => r.name)).toEqual(["good"]);
  }, 5000);

  test("a symlink to a FIFO, and a FIFO named like a rule, are never opened (discovery does not block)", async () => {
    await withGood();
    const elsewhere = join(box.project, "elsewhere");
    await mkdir(elsewhere);
    execFileSync("mkfifo", [join(elsewhere, "fifo"), inRules("fifo.md")]);
    await symlink(join(elsewhere, "fifo"), inRules("pipe.md"));
    const fs = spyFs();
    const loaded = await load(fs);
    const notRegular = "is not a regular file (a device, FIFO or socket); never opened, skipped";
    expect(shown(loaded.warnings)).toEqual([
      { path: inRules("fifo.md"), message: notRegular },
      { path: inRules("pipe.md"), message: notRegular },
    ]);
    expect(fs.readFile.mock.calls.map(([path]) => path)).toEqual([inRules("good.md")]);
    expectGoodLoaded(loaded);
  }, 5000);
});
