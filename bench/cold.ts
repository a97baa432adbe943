/**
 * Target 1 as a user meets it: the plugin's start in a fresh process (OpenCode
 * starts it once), where nothing is compiled yet, with its first message and
 * first follow-up message. Two series: OpenCode's first start in the project
 * (no parse cache: every rule file read and parsed) and a later one (the parse
 * cache the earlier start wrote, in OpenCode's cache folder; the rule files
 * unchanged, so only stat'ed). Each run is a child process:
 * `node --import tsx bench/cold.ts <entry> <project JSON>` imports the plugin
 * (not timed: OpenCode does that before calling it), reads the floor once,
 * then starts the plugin; it prints one JSON line.
 *
 * On its own (`npx tsx bench/cold.ts [--src | --entry=<path>] [--runs=N]`,
 * `dist/index.js` by default) it runs both series and prints each against
 * its target (issue 44), as `npm run bench` does in its first section.
 *
 * Beside each series, in fresh processes of their own, the asynchronous
 * floor of its file system work (floors.ts), as a ratio to the same
 * synchronous floor: what of the target the thread pool's trips alone take.
 */
import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import { benchProject, isolateEnv, untilSettled, writeRules, type BenchProject } from "./fixtures.js";
import {
  BenchSession,
  carriesRules,
  fakeClient,
  loadPlugin,
  pluginEntry,
  REPO,
  startPlugin,
  stopPlugin,
} from "./plugin.js";
import { asyncFloor, ruleFilesIn, type AsyncFloorKind } from "./floors.js";
import { syncFloor } from "./start.js";
import { median, ms, ratio, verdict } from "./stats.js";

/** Start plus first message in a fresh process, times the synchronous floor, at 1,000 rules (issue 44). */
export const COLD_TARGETS = { later: 4, first: 8 } as const;

export interface ColdRun {
  floorMs: number;
  /**
   * The other way issue 30 named, measured after the run: the floor's
   * synchronous reads in a worker thread, from its start until the main
   * thread has every file's bytes (a hung mount would stall the worker only).
   */
  workerMs: number;
  startMs: number;
  firstMessageMs: number;
  followUpMs: number;
}

export interface ColdSeries extends ColdRun {
  runs: number;
  /** Median, run by run, of floors.ts's floor for the series over the synchronous floor: `stats` for a later start, `reads` for a first. */
  asyncFloorRatio: number;
}

/** One fresh process's synchronous floor, then the asynchronous one of `kind`. */
interface FloorRun {
  floorMs: number;
  asyncMs: number;
}

/** Medians of `runs` fresh processes, each starting the plugin once on `files` rules: without the parse cache (`first`), then with it (`later`). */
export async function benchCold(
  entry: string,
  files: number,
  runs: number,
): Promise<{ first: ColdSeries; later: ColdSeries }> {
  const bench = await benchProject("rulebook-bench-cold-");
  const cache = join(bench.home, ".cache");
  try {
    await writeRules(bench.rulesDir, files);
    await untilSettled();
    const child = async <T>(...args: string[]): Promise<T> => {
      const argv = ["--import", "tsx", join(REPO, "bench", "cold.ts"), ...args];
      const { stdout } = await promisify(execFile)(process.execPath, argv, { cwd: REPO, maxBuffer: 1 << 20 });
      return JSON.parse(stdout.trim().split("\n").at(-1)!);
    };
    const run = () => child<ColdRun>(entry, JSON.stringify(bench));
    const floors = (kind: AsyncFloorKind) => child<FloorRun>(`--floor=${kind}`, bench.rulesDir);
    const first: ColdRun[] = [];
    const later: ColdRun[] = [];
    const reads: FloorRun[] = [];
    const stats: FloorRun[] = [];
    // Alternated, so drift (other processes) hits both alike: each `first` run starts with no cache, and leaves one for the `later` run after it.
    for (let i = 0; i < runs; i++) {
      await rm(cache, { recursive: true, force: true });
      first.push(await run());
      reads.push(await floors("reads"));
      later.push(await run());
      stats.push(await floors("stats"));
    }
    return { first: medians(first, reads), later: medians(later, stats) };
  } finally {
    await rm(bench.root, { recursive: true, force: true });
  }
}

/** Each series against its target: `later start 3.62x the floor (target ≤ 4x): met`, with its parts. */
export function coldTargetLines(colds: { first: ColdSeries; later: ColdSeries }): string[] {
  const line = (what: string, run: ColdSeries, limit: number) => {
    const total = run.startMs + run.firstMessageMs;
    return `${what} ${ratio(total / run.floorMs)} the floor (target ≤ ${limit}x): ${verdict(total <= limit * run.floorMs)}; start ${ms(run.startMs)} ms + first message ${ms(run.firstMessageMs)} ms = ${ms(total)} ms, floor ${ms(run.floorMs)} ms`;
  };
  return [
    line("later start (the parse cache the first wrote)", colds.later, COLD_TARGETS.later),
    `  of which no asynchronous loader does less than its stats: one stat per rule file alone is ${ratio(colds.later.asyncFloorRatio)} the floor`,
    line("first start in a new project (no parse cache)", colds.first, COLD_TARGETS.first),
    `  of which no asynchronous loader does less than its reads: stat, open, read and close per rule file alone are ${ratio(colds.first.asyncFloorRatio)} the floor`,
  ];
}

function medians(results: ColdRun[], floors: FloorRun[]): ColdSeries {
  const of = (key: keyof ColdRun) => median(results.map((run) => run[key]));
  return {
    runs: results.length,
    asyncFloorRatio: median(floors.map((run) => run.asyncMs / run.floorMs)),
    floorMs: of("floorMs"),
    workerMs: of("workerMs"),
    startMs: of("startMs"),
    firstMessageMs: of("firstMessageMs"),
    followUpMs: of("followUpMs"),
  };
}

async function coldRun(entry: string, bench: BenchProject): Promise<ColdRun> {
  isolateEnv(bench.home);
  const plugin = await loadPlugin(entry);
  let t = performance.now();
  syncFloor(bench.rulesDir);
  const floorMs = performance.now() - t;
  const { client } = fakeClient();
  t = performance.now();
  const hooks = await startPlugin(plugin, bench, client);
  const startMs = performance.now() - t;
  const session = new BenchSession(hooks, "ses_cold");
  const created = session.created();
  t = performance.now();
  const first = await session.userMessage("Hello! Please give me an overview of this project before we start.");
  const firstMessageMs = performance.now() - t;
  t = performance.now();
  await session.userMessage("Thanks. Now look at the tests and tell me which ones are slow.");
  const followUpMs = performance.now() - t;
  await stopPlugin(hooks);
  await created;
  if (!carriesRules(first)) throw new Error("the first message carried no rules");
  return { floorMs, workerMs: await workerRead(bench.rulesDir), startMs, firstMessageMs, followUpMs };
}

/** The floor's reads done in a new worker thread, timed from its creation until its answer arrives. */
async function workerRead(dir: string): Promise<number> {
  const body = `
    const { parentPort, workerData } = require("node:worker_threads");
    const { readdirSync, readFileSync } = require("node:fs");
    const { join } = require("node:path");
    const files = [];
    for (const entry of readdirSync(workerData, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && /\\.(md|mdc)$/i.test(entry.name)) files.push(readFileSync(join(entry.parentPath ?? entry.path, entry.name)));
    }
    parentPort.postMessage(files);`;
  const t = performance.now();
  const worker = new Worker(body, { eval: true, workerData: dir });
  const files = await new Promise<Uint8Array[]>((resolve, reject) =>
    worker.once("message", resolve).once("error", reject),
  );
  const ms = performance.now() - t;
  await worker.terminate();
  if (files.length === 0) throw new Error("the worker read no file");
  return ms;
}

/** The synchronous floor, then the asynchronous floor of `kind` over the same files, in this fresh process. */
async function floorRun(kind: AsyncFloorKind, dir: string): Promise<FloorRun> {
  let t = performance.now();
  syncFloor(dir);
  const floorMs = performance.now() - t;
  const files = ruleFilesIn(dir);
  t = performance.now();
  await asyncFloor(kind, files);
  return { floorMs, asyncMs: performance.now() - t };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, project] = process.argv.slice(2);
  const floorKind = entry?.startsWith("--floor=") ? (entry.slice("--floor=".length) as AsyncFloorKind) : undefined;
  if (floorKind && project) console.log(JSON.stringify(await floorRun(floorKind, project)));
  else if (entry && project && !entry.startsWith("--"))
    console.log(JSON.stringify(await coldRun(entry, JSON.parse(project))));
  else {
    const runs = Number(process.argv.find((arg) => arg.startsWith("--runs="))?.slice("--runs=".length) ?? 9);
    const colds = await benchCold(pluginEntry(), 1000, runs);
    console.log(`Fresh processes, 1,000 rules, medians of ${runs} each:`);
    for (const line of coldTargetLines(colds)) console.log(`  ${line}`);
  }
}
