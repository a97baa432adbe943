/**
 * Memory held by the started plugin, measured in a process of its own:
 * `node --expose-gc --import tsx bench/memory.ts <entry> <count>...`. Heap
 * after a forced GC with the plugin's hooks held, minus the heap before; then
 * the same after one session whose working set reached 1,000 files. Prints
 * one JSON line; `benchMemory` runs it from the main benchmark.
 */
import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { benchProject, isolateEnv, writeRules, writeWorkingSet } from "./fixtures.js";
import { BenchSession, fakeClient, loadPlugin, REPO, startPlugin, stopPlugin } from "./plugin.js";

export interface MemoryRow {
  engineBytes: number;
  sessionBytes: number;
}

export async function benchMemory(entry: string, counts: readonly number[]): Promise<Record<string, MemoryRow>> {
  const script = join(REPO, "bench", "memory.ts");
  const args = ["--expose-gc", "--import", "tsx", script, entry, ...counts.map(String)];
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: REPO, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

async function measure(entry: string, counts: readonly number[]): Promise<Record<string, MemoryRow>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc");
  const settledHeap = () => {
    for (let i = 0; i < 4; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  const plugin = await loadPlugin(entry);
  const result: Record<string, MemoryRow> = {};
  for (const count of counts) {
    const bench = await benchProject("rulebook-bench-mem-");
    isolateEnv(bench.home);
    await writeRules(bench.rulesDir, count);
    const files = await writeWorkingSet(bench.project, 1000);
    // Warm the modules and caches with one start, then measure a second.
    await stopPlugin(await startPlugin(plugin, bench, fakeClient().client));
    const before = settledHeap();
    const hooks = await startPlugin(plugin, bench, fakeClient().client);
    const afterStart = settledHeap();
    const session = new BenchSession(hooks, "ses_memory");
    const created = session.created();
    await session.userMessage("Let us start.");
    for (const file of files) await session.read(file);
    const afterSession = settledHeap();
    result[count] = { engineBytes: afterStart - before, sessionBytes: afterSession - afterStart };
    await stopPlugin(hooks);
    await created;
    await rm(bench.root, { recursive: true, force: true });
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, ...counts] = process.argv.slice(2);
  console.log(JSON.stringify(await measure(entry!, counts.map(Number))));
}
