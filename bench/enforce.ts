/**
 * Rules that hold (issue 28): the cost of checking one tool call against
 * 1,000 rules that forbid, 10 patterns each (half literals, half regular
 * expressions), through the plugin's entry as OpenCode 1 calls it
 * (`tool.execute.before` of a `write`). Every rule applies to the file (no
 * globs): the worst case for the scan. The file does not exist yet, so every
 * line written counts as added.
 *
 * The floor is what any check must do at least: read the text written once
 * (split it into its lines). Measured for a 1 KiB and a 1 MiB write, to show
 * the cost grows with the size written and not faster. A write of `/(a+)+$/`'s
 * worst input stands in for a hostile repository.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { benchProject, isolateEnv } from "./fixtures.js";
import { fakeClient, startPlugin, stopPlugin } from "./plugin.js";
import type { Plugin } from "@opencode-ai/plugin";
import { median, quantile, timed } from "./stats.js";

export const ENFORCING_RULES = 1000;
export const PATTERNS_PER_RULE = 10;

export interface CheckSamples {
  label: string;
  bytes: number;
  /** Milliseconds per checked call. */
  samples: number[];
  /** Milliseconds to split the same text into lines: the floor. */
  floor: number[];
  /** The call was let run (no pattern matches the text written). */
  letRun: boolean;
}

export interface EnforceResult {
  writes: CheckSamples[];
  /** A 50,000-character write against `/(a+)+$/`, milliseconds. */
  hostileMs: number;
  /** The first checked call, patterns compiled then, milliseconds. */
  firstCallMs: number;
  /** The same hostile write the first time a line longer than a window is checked (the windows' sets compiled then), milliseconds. */
  firstLongLineMs: number;
}

function enforcingRule(i: number): string {
  const patterns = Array.from({ length: PATTERNS_PER_RULE }, (_, p) =>
    p % 2 === 0 ? `  - "forbidden_${i}_${p}("` : `  - /\\bbad${i}x${p}\\s*=\\s*any\\b/i`,
  );
  return `---\nalwaysApply: false\nforbid:\n${patterns.join("\n")}\n---\nRule ${i}: never call forbidden_${i}.\n`;
}

/** Ordinary code, `bytes` long: nothing in it is forbidden. */
function code(bytes: number): string {
  const line = "const total = items.reduce((sum, item) => sum + item.price * item.count, 0);";
  const lines: string[] = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    const next = `${line} // ${i}`;
    lines.push(next);
    size += next.length + 1;
  }
  return lines.join("\n");
}

export async function measureEnforcement(plugin: Plugin, rounds: number): Promise<EnforceResult> {
  const bench = await benchProject("rulebook-bench-enforce-");
  isolateEnv(bench.home);
  await mkdir(bench.rulesDir, { recursive: true });
  await Promise.all(
    Array.from({ length: ENFORCING_RULES }, (_, i) =>
      writeFile(join(bench.rulesDir, `forbid-${i}.md`), enforcingRule(i)),
    ),
  );
  await writeFile(
    join(bench.rulesDir, "hostile.md"),
    '---\nalwaysApply: false\nglobs: hostile/**\nforbid: "/(a+)+$/"\n---\nNo runs of a.\n',
  );
  const { client } = fakeClient();
  const hooks = await startPlugin(plugin, bench, client);
  const before = hooks["tool.execute.before"];
  if (!before) throw new Error("the plugin has no tool.execute.before hook");
  let call = 0;
  const write = async (file: string, content: string) => {
    try {
      await before(
        { tool: "write", sessionID: "ses_enforce_bench", callID: `call_${++call}` },
        { args: { filePath: join(bench.project, file), content } },
      );
      return true;
    } catch {
      return false;
    }
  };
  try {
    const firstCallMs = await timed(() => write("src/first.ts", code(1024)));
    const writes: CheckSamples[] = [];
    for (const [label, bytes] of [
      ["1 KiB", 1024],
      ["1 MiB", 1024 * 1024],
    ] as const) {
      const text = code(bytes);
      const samples: number[] = [];
      const floor: number[] = [];
      let letRun = true;
      const n = bytes > 1024 ? Math.max(5, Math.round(rounds / 20)) : rounds;
      for (let i = 0; i < n; i++) {
        const file = `src/new-${label.length}-${i}.ts`;
        const started = performance.now();
        const ran = await write(file, text);
        samples.push(performance.now() - started);
        letRun &&= ran;
        floor.push(await timed(async () => void text.split("\n").length));
      }
      writes.push({ label, bytes, samples, floor, letRun });
    }
    // The first line longer than a window builds the sets for windows that cut a line: a one-time cost, measured apart.
    const firstLongLineMs = await timed(() => write("hostile/a.txt", `${"a".repeat(50_000)}b`));
    const hostileMs = await timed(() => write("hostile/b.txt", `${"a".repeat(50_000)}b`));
    return { writes, hostileMs, firstCallMs, firstLongLineMs };
  } finally {
    await stopPlugin(hooks);
    await rm(bench.root, { recursive: true, force: true });
  }
}

/** Median and p99 of a write's samples, and the ratio of its median to its floor's. */
export function summarise(samples: CheckSamples): { median: number; p99: number; floor: number } {
  return { median: median(samples.samples), p99: quantile(samples.samples, 0.99), floor: median(samples.floor) };
}
