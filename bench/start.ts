/**
 * Target 1: plugin start plus a new session's first user message, against the
 * floor of reading the same rule files with plain synchronous `fs` in the
 * same process. "Start": the plugin's initializer called until it returns its
 * hooks. "First message": `session.created` (not awaited, as OpenCode does not
 * await event hooks), then at once the first `chat.message`, until it returns:
 * within the 300 ms grace period, so the message carries the rules itself.
 * Also the asynchronous floor (issue 7's discovery target: start ≤ 2x it).
 */
import type { Plugin } from "@opencode-ai/plugin";
import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { benchProject, isolateEnv, untilCacheSaved, untilSettled, writeRules, type BenchProject } from "./fixtures.js";
import { BenchSession, carriesRules, fakeClient, startPlugin, stopPlugin } from "./plugin.js";
import { median, timed } from "./stats.js";

const RULE_FILE = /\.(md|mdc)$/i;

/** The least any loader must do, blocking: list the folder tree and read every rule file. */
export function syncFloor(dir: string): number {
  let files = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && RULE_FILE.test(entry.name)) {
      readFileSync(join(entry.parentPath ?? entry.path, entry.name));
      files++;
    }
  }
  return files;
}

/** The same with the asynchronous API the plugin uses, every read at once. */
export async function asyncFloor(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && RULE_FILE.test(entry.name));
  return (await Promise.all(files.map((entry) => readFile(join(entry.parentPath ?? entry.path, entry.name))))).length;
}

export interface StartRow {
  files: number;
  runs: number;
  startMs: number;
  firstMessageMs: number;
  /** Median of start + first message, run by run. */
  totalMs: number;
  syncFloorMs: number;
  asyncFloorMs: number;
}

let sessions = 0;

/**
 * One start and first message, with `options` handed to the plugin; checks
 * that the message carried the rules and, when `quiet`, that the plugin
 * warned of nothing (a rule source that silently dropped out would make the
 * run measure less than asked).
 */
export async function startAndFirstMessage(
  plugin: Plugin,
  bench: BenchProject,
  { options = {}, quiet = false }: { options?: Record<string, unknown>; quiet?: boolean } = {},
): Promise<{ startMs: number; firstMessageMs: number }> {
  const { client, calls } = fakeClient();
  const t0 = performance.now();
  const hooks = await startPlugin(plugin, bench, client, options);
  const t1 = performance.now();
  const session = new BenchSession(hooks, `ses_start${++sessions}`);
  const created = session.created();
  const parts = await session.userMessage("Hello! Please give me an overview of this project before we start.");
  const t2 = performance.now();
  await stopPlugin(hooks);
  await created;
  const warned = quiet ? calls.logs.filter((line) => /^(warn|error):/.test(line)) : [];
  if (!carriesRules(parts) || warned.length > 0) {
    throw new Error(
      `the first message carried not every rule (plugin log: ${(warned.length > 0 ? warned : calls.logs).slice(-3).join(" | ") || "empty"})`,
    );
  }
  return { startMs: t1 - t0, firstMessageMs: t2 - t1 };
}

export async function benchStart(plugin: Plugin, files: number, quick: boolean): Promise<StartRow> {
  const bench = await benchProject("rulebook-bench-start-");
  isolateEnv(bench.home);
  try {
    await writeRules(bench.rulesDir, files);
    // The first warm-up start writes the parse cache, which the runs then read, as a later start of OpenCode does.
    await untilSettled();
    const runs = quick ? (files >= 10_000 ? 3 : 5) : files >= 10_000 ? 7 : files >= 1000 ? 15 : 25;
    // Warm: the page cache, the modules, V8's compiled code.
    for (let i = 0; i < (files >= 10_000 ? 1 : 3); i++) {
      if (syncFloor(bench.rulesDir) !== files) throw new Error("the floor read the wrong number of files");
      await asyncFloor(bench.rulesDir);
      await startAndFirstMessage(plugin, bench);
    }
    await untilCacheSaved();
    const start: number[] = [];
    const first: number[] = [];
    const total: number[] = [];
    const sync: number[] = [];
    const async: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Alternated, so drift (other processes, GC) hits all alike.
      sync.push(await timed(async () => syncFloor(bench.rulesDir)));
      async.push(await timed(() => asyncFloor(bench.rulesDir)));
      const run = await startAndFirstMessage(plugin, bench);
      start.push(run.startMs);
      first.push(run.firstMessageMs);
      total.push(run.startMs + run.firstMessageMs);
    }
    return {
      files,
      runs,
      startMs: median(start),
      firstMessageMs: median(first),
      totalMs: median(total),
      syncFloorMs: median(sync),
      asyncFloorMs: median(async),
    };
  } finally {
    await rm(bench.root, { recursive: true, force: true });
  }
}
