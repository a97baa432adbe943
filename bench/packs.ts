/**
 * Issue 41: a later start with packs of rules costs no more per rule than the
 * same rules kept in the project. Two projects hold the same 1,000 rule files
 * (fixtures.ts): one in `.opencode/rules/`, one as 10 npm packs of 100 under
 * `node_modules/@acme/pack-N/rules/`, named in its `opencode.json` and handed
 * to the plugin as its options (as OpenCode does), recorded in its
 * `.opencode/rulebook.lock` by the built CLI's `packs install`. Each start is a
 * warm one, as in start.ts: the parse cache an earlier start wrote is read, so
 * the pack files are only stat'ed, and the lock's hash checked against the
 * digests kept. `git` on the PATH is a script that leaves a marker, so a git
 * process run by the plugin at start would be counted.
 */
import type { Plugin } from "@opencode-ai/plugin";
import { execFile } from "node:child_process";
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { benchProject, isolateEnv, untilCacheSaved, untilSettled, writeRules, type BenchProject } from "./fixtures.js";
import { REPO } from "./plugin.js";
import { startAndFirstMessage } from "./start.js";
import { median } from "./stats.js";

export const PACKS = 10;
export const RULES_PER_PACK = 100;

export interface PackStart {
  startMs: number;
  firstMessageMs: number;
  /** Median of start + first message, run by run. */
  totalMs: number;
}

export interface PacksResult {
  runs: number;
  rules: number;
  packs: PackStart;
  local: PackStart;
  /** Times `git` was run while the plugin started, over every start (warm-ups included). */
  gitRuns: number;
}

/** The 1,000 rules as npm packs in `bench.project`, named in its opencode.json and locked by `packs install`; returns their names. */
async function writePacks(bench: BenchProject): Promise<string[]> {
  const stage = join(bench.root, "stage");
  await writeRules(stage, PACKS * RULES_PER_PACK);
  // writeRules makes folders of 100 rules: each becomes one pack's rules folder.
  const groups = (await readdir(stage)).sort();
  if (groups.length !== PACKS)
    throw new Error(`expected ${PACKS} folders of ${RULES_PER_PACK} rules, found ${groups.length}`);
  const names = groups.map((_, p) => `@acme/pack-${p}`);
  for (const [p, name] of names.entries()) {
    const folder = join(bench.project, "node_modules", ...name.split("/"));
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, "package.json"),
      `${JSON.stringify({ name, version: "1.0.0", "opencode-rulebook": { rules: "rules" } }, null, 2)}\n`,
    );
    await rename(join(stage, groups[p]!), join(folder, "rules"));
  }
  await writeFile(
    join(bench.project, "opencode.json"),
    `${JSON.stringify({ plugin: [["opencode-rulebook", { packs: names }]] }, null, 2)}\n`,
  );
  // The lock as a user writes it: the built CLI, in the project, with the isolated home.
  await promisify(execFile)(process.execPath, [join(REPO, "dist", "cli", "main.js"), "packs", "install"], {
    cwd: bench.project,
  });
  const lock = JSON.parse(await readFile(join(bench.project, ".opencode", "rulebook.lock"), "utf8")) as {
    packs: Record<string, unknown>;
  };
  if (names.some((name) => !Object.hasOwn(lock.packs, name))) throw new Error("packs install did not lock every pack");
  return names;
}

/** A `git` that only notes it was run, first on the PATH; returns the marker file it appends to. */
async function gitTrap(folder: string): Promise<string> {
  const bin = join(folder, "bin");
  const marker = join(folder, "git-ran");
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, "git"), `#!/bin/sh\necho "git $*" >> '${marker}'\nexit 1\n`);
  await chmod(join(bin, "git"), 0o755);
  return marker;
}

/** One later start and its first message (start.ts), the packs handed as options; throws unless every pack was delivered. */
const laterStart = (plugin: Plugin, bench: BenchProject, options: Record<string, unknown>) =>
  startAndFirstMessage(plugin, bench, { options, quiet: true });

function medians(runs: Awaited<ReturnType<typeof laterStart>>[]): PackStart {
  return {
    startMs: median(runs.map((run) => run.startMs)),
    firstMessageMs: median(runs.map((run) => run.firstMessageMs)),
    totalMs: median(runs.map((run) => run.startMs + run.firstMessageMs)),
  };
}

export async function benchPacks(plugin: Plugin, quick: boolean): Promise<PacksResult> {
  const packed = await benchProject("rulebook-bench-packs-");
  const local = await benchProject("rulebook-bench-local-");
  isolateEnv(packed.home);
  const path = process.env.PATH;
  try {
    const specs = await writePacks(packed);
    await writeRules(local.rulesDir, PACKS * RULES_PER_PACK);
    const marker = await gitTrap(packed.root);
    await untilSettled();
    process.env.PATH = `${join(packed.root, "bin")}${delimiter}${path ?? ""}`;
    const options = { packs: specs };
    // Warm: the first start of each writes the parse cache the runs then read, as a later start of OpenCode does.
    for (let i = 0; i < 3; i++) {
      await laterStart(plugin, packed, options);
      await laterStart(plugin, local, {});
    }
    await untilCacheSaved();
    const runs = quick ? 5 : 15;
    const packRuns = [];
    const localRuns = [];
    for (let i = 0; i < runs; i++) {
      // Alternated, so drift (other processes, GC) hits both alike.
      packRuns.push(await laterStart(plugin, packed, options));
      localRuns.push(await laterStart(plugin, local, {}));
    }
    const gitRuns = (await readFile(marker, "utf8").catch(() => "")).split("\n").filter(Boolean).length;
    return { runs, rules: PACKS * RULES_PER_PACK, packs: medians(packRuns), local: medians(localRuns), gitRuns };
  } finally {
    if (path === undefined) delete process.env.PATH;
    else process.env.PATH = path;
    await rm(packed.root, { recursive: true, force: true });
    await rm(local.root, { recursive: true, force: true });
  }
}
