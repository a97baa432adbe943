/**
 * Memory held per 1,000 rules, measured in a process of its own run with
 * `node --expose-gc --import tsx bench/memory.ts <count>...`: heap after a
 * forced GC with the loaded rules (and a started engine) held, minus the heap
 * before. Prints one JSON line.
 */
import { rm } from "node:fs/promises";
import { nodeRuleFs } from "../src/sources/fs.js";
import { loadRules } from "../src/sources/load.js";
import { benchProject, startBenchRulebook, writeRules } from "./fixtures.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

function settledHeap(): number {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage().heapUsed;
}

const counts = process.argv.slice(2).map(Number);
const result: Record<string, { loadRulesBytes: number; engineBytes: number }> = {};
for (const count of counts) {
  const bench = await benchProject("rulebook-bench-mem-");
  await writeRules(bench.rulesDir, count);
  const context = { env: {}, home: bench.home, directory: bench.project, worktree: bench.project, fs: nodeRuleFs, maxRuleBytes: 65536 };
  // Warm the modules and caches, and hold one result: the last result awaited can stay reachable
  // from V8's internals until the next await, which would hide the one measured.
  await loadRules(context);
  const warm = await loadRules(context);
  const before = settledHeap();
  const held = await loadRules(context);
  const afterLoad = settledHeap();
  if (held.rules.length !== count) throw new Error(`expected ${count} rules, loaded ${held.rules.length}`);
  const client = { session: { prompt: async () => ({}), messages: async () => ({ data: [] }) }, app: { log: async () => ({}) } };
  const beforeEngine = settledHeap();
  const engine = await startBenchRulebook(bench, client);
  const afterEngine = settledHeap();
  if (engine.loaded().rules.length !== count) throw new Error("engine did not load every rule");
  result[count] = { loadRulesBytes: afterLoad - before, engineBytes: afterEngine - beforeEngine };
  engine.dispose();
  void held.rules.length;
  void warm.rules.length;
  await rm(bench.root, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
