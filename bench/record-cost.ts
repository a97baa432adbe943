/**
 * Issue 43: what keeping the record costs a tool call. Two plugins side by
 * side over the same 1,000 rules and working set, one with the record (the
 * default) and one with `record: false`; each round times a block of `read`
 * calls (before + after) and a block of checked `write` calls on each, in
 * turn, so drift of the machine falls on both alike. The figure is the
 * median per call with the record against without it (target ≤ 1.05).
 */
import type { Plugin } from "@opencode-ai/plugin";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchProject, isolateEnv, writeRules, writeWorkingSet } from "./fixtures.js";
import { BenchSession, fakeClient, loadPlugin, pluginEntry, startPlugin, stopPlugin } from "./plugin.js";
import { median, ms, ratio, table, timed, us, verdict } from "./stats.js";

export const RECORD_COST_LIMIT = 1.05;
const RULES = 1000;
const FORBIDDING = 100;
const FILES = 200;
const CALLS_PER_ROUND = 50;

export interface RecordCostRow {
  call: string;
  withRecordMs: number;
  withoutMs: number;
  calls: number;
}

export async function benchRecordCost(plugin: Plugin, quick: boolean): Promise<RecordCostRow[]> {
  const bench = await benchProject("rulebook-bench-record-");
  isolateEnv(bench.home);
  const started: Array<Awaited<ReturnType<Plugin>>> = [];
  try {
    await writeRules(bench.rulesDir, RULES - FORBIDDING);
    // Rules that forbid, for every file: each write is checked against them.
    await Promise.all(
      Array.from({ length: FORBIDDING }, (_, i) =>
        writeFile(
          join(bench.rulesDir, `forbid-${i}.md`),
          `---\nalwaysApply: false\nforbid:\n  - "forbidden_${i}("\n---\nNever call forbidden_${i}.\n`,
        ),
      ),
    );
    const files = await writeWorkingSet(bench.project, FILES);
    const session = async (options: Record<string, unknown>, id: string) => {
      const hooks = await startPlugin(plugin, bench, fakeClient().client, options);
      started.push(hooks);
      const one = new BenchSession(hooks, id);
      void one.created();
      await one.userMessage("Let us work on the modules under src/ today.");
      for (const file of files) await one.read(file);
      return one;
    };
    const recorded = await session({}, "ses_record_on");
    const unrecorded = await session({ record: false }, "ses_record_off");
    const samples = {
      read: { on: [] as number[], off: [] as number[] },
      write: { on: [] as number[], off: [] as number[] },
    };
    const rounds = quick ? 20 : 60;
    for (let round = 0; round < rounds; round++) {
      // Call by call, in turn, which goes first alternating: drift of the machine falls on both alike.
      for (let i = 0; i < CALLS_PER_ROUND; i++) {
        const file = files[(round * CALLS_PER_ROUND + i) % files.length]!;
        const content = `export const value${i} = ${round};\n`;
        const order = i % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const);
        for (const side of order) {
          const one = side === "on" ? recorded : unrecorded;
          samples.read[side].push(await timed(() => one.read(file)));
          samples.write[side].push(await timed(() => one.write(file, content)));
          // A host's event loop turns between tool calls (its model's answer comes over the network).
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    }
    return (["read", "write"] as const).map((call) => ({
      call: call === "read" ? "read (before + after)" : "write, checked against rules that forbid",
      withRecordMs: median(samples[call].on),
      withoutMs: median(samples[call].off),
      calls: rounds * CALLS_PER_ROUND,
    }));
  } finally {
    for (const hooks of started) await stopPlugin(hooks);
    await rm(bench.root, { recursive: true, force: true });
  }
}

export function recordCostReport(rows: readonly RecordCostRow[]): string[] {
  return [
    "11. A tool call with the record kept vs with `record: false`, side by side (issue 43); 1,000 rules, medians per call",
    `   Target: ≤ ${RECORD_COST_LIMIT}x (within 5%).`,
    table(
      ["call", "with record", "without", "ratio", "calls", `≤ ${RECORD_COST_LIMIT}x`],
      rows.map((row) => [
        row.call,
        `${us(row.withRecordMs)} µs`,
        `${us(row.withoutMs)} µs`,
        ratio(row.withRecordMs / row.withoutMs),
        String(row.calls),
        verdict(row.withRecordMs / row.withoutMs <= RECORD_COST_LIMIT),
      ]),
    ),
  ];
}

// Alone: `npx tsx bench/record-cost.ts [--quick] [--src]`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const plugin = await loadPlugin(pluginEntry());
  const rows = await benchRecordCost(plugin, process.argv.includes("--quick"));
  console.log(recordCostReport(rows).join("\n"));
  console.log(
    `   (per-call medians in ms: ${rows.map((row) => `${ms(row.withRecordMs)}/${ms(row.withoutMs)}`).join(", ")})`,
  );
}
