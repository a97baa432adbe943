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
const CALLS_PER_BLOCK = 50;

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
      // Which goes first alternates: neither always meets a warmer or colder machine.
      const order =
        round % 2 === 0
          ? ([
              ["on", recorded],
              ["off", unrecorded],
            ] as const)
          : ([
              ["off", unrecorded],
              ["on", recorded],
            ] as const);
      for (const [side, one] of order) {
        samples.read[side].push(await perCall(() => blockOfReads(one, files, round)));
        samples.write[side].push(await perCall(() => blockOfWrites(one, files, round)));
      }
    }
    return (["read", "write"] as const).map((call) => ({
      call: call === "read" ? "read (before + after)" : "write, checked against rules that forbid",
      withRecordMs: median(samples[call].on),
      withoutMs: median(samples[call].off),
      calls: rounds * CALLS_PER_BLOCK,
    }));
  } finally {
    for (const hooks of started) await stopPlugin(hooks);
    await rm(bench.root, { recursive: true, force: true });
  }
}

async function perCall(block: () => Promise<void>): Promise<number> {
  return (await timed(block)) / CALLS_PER_BLOCK;
}

async function blockOfReads(session: BenchSession, files: readonly string[], round: number): Promise<void> {
  for (let i = 0; i < CALLS_PER_BLOCK; i++) await session.read(files[(round * CALLS_PER_BLOCK + i) % files.length]!);
}

async function blockOfWrites(session: BenchSession, files: readonly string[], round: number): Promise<void> {
  for (let i = 0; i < CALLS_PER_BLOCK; i++)
    await session.write(files[(round * CALLS_PER_BLOCK + i) % files.length]!, `export const value${i} = ${round};\n`);
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
