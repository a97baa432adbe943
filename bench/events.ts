/**
 * Targets 2–4: the cost of a session's events with 1,000 rules (half
 * always-on, half on globs and keywords) and a working set of 1,000 files.
 *
 * One session: created, first message (it carries the rules), then
 * 1. fill: one `read` tool call (before + after) for each of the 1,000 files,
 *    new to the session (the working set grows 0 → 1,000; 100 of them match a
 *    rule's glob, which then goes into that tool result);
 * 2. steady: turns of one follow-up user message (naming an existing file;
 *    every 10th also a rule's keyword) and 10 `read` calls of files already in
 *    the working set. Target 2 is judged on these tool calls, target 3 on these
 *    messages, target 4 on the last third of them against the first third
 *    (divided by the same ratio of a fixed reference work, for the machine's drift).
 */
import type { Plugin } from "@opencode-ai/plugin";
import { rm } from "node:fs/promises";
import { relative } from "node:path";
import { benchProject, isolateEnv, writeRules, writeWorkingSet } from "./fixtures.js";
import {
  BenchSession,
  carriesRules,
  fakeClient,
  READ_OUTPUT,
  startPlugin,
  stopPlugin,
  type ClientCalls,
} from "./plugin.js";
import { median, quantile, timed } from "./stats.js";

/**
 * A fixed piece of work (sort 4,000 numbers into a Set), timed once per turn:
 * the machine's own drift over the session (other processes, CPU clocks), by
 * which target 4's ratios are divided.
 */
const REFERENCE_INPUT = Array.from({ length: 4000 }, (_, i) => (i * 7919) % 4001);
function referenceWork(): number {
  return new Set([...REFERENCE_INPUT].sort((a, b) => a - b)).size;
}

export const RULES = 1000;
export const FILES = 1000;
const CALLS_PER_TURN = 10;

export interface Samples {
  name: string;
  samples: number[];
}

export interface EventsResult {
  fill: Samples;
  tool: Samples;
  chat: Samples;
  /** The reference work, once per turn. */
  reference: Samples;
  /** Tool results (fill) and follow-up messages (steady) that carried newly activated rules. */
  deliveredWithTools: number;
  deliveredWithMessages: number;
  calls: ClientCalls;
}

export interface Summary {
  median: number;
  p99: number;
  /** Median of the first and of the last third of the samples. */
  firstThird: number;
  lastThird: number;
}

export function summarise(samples: readonly number[]): Summary {
  const third = Math.max(1, Math.floor(samples.length / 3));
  return {
    median: median(samples),
    p99: quantile(samples, 0.99),
    firstThird: median(samples.slice(0, third)),
    lastThird: median(samples.slice(-third)),
  };
}

export async function benchEvents(plugin: Plugin, quick: boolean): Promise<EventsResult> {
  const bench = await benchProject("rulebook-bench-events-");
  isolateEnv(bench.home);
  const { client, calls } = fakeClient();
  let hooks: Awaited<ReturnType<Plugin>> | undefined;
  try {
    await writeRules(bench.rulesDir, RULES);
    const files = await writeWorkingSet(bench.project, FILES);
    hooks = await startPlugin(plugin, bench, client);
    const session = new BenchSession(hooks, "ses_bench_events");
    const created = session.created();
    if (!carriesRules(await session.userMessage("Let us work on the modules under src/ today.")))
      throw new Error("the first message carried no rules");

    const fill: number[] = [];
    let deliveredWithTools = 0;
    for (const file of files) {
      let output = "";
      fill.push(await timed(async () => (output = await session.read(file))));
      if (output !== READ_OUTPUT) deliveredWithTools++;
    }

    const turns = quick ? 300 : 1000;
    const tool: number[] = [];
    const chat: number[] = [];
    const reference: number[] = [];
    let deliveredWithMessages = 0;
    for (let turn = 0; turn < turns; turn++) {
      const named = relative(bench.project, files[(turn * 7) % FILES]!);
      // Rules 201, 203, … match no file of the working set: their keywords activate them, one every 10 turns.
      const keyword = turn % 10 === 9 ? ` Mind kw${201 + 2 * ((turn / 10) | 0)} there.` : "";
      let parts: Awaited<ReturnType<BenchSession["userMessage"]>> = [];
      chat.push(
        await timed(
          async () =>
            (parts = await session.userMessage(
              `Please look at ${named} again and keep the tests passing (step ${turn}).${keyword}`,
            )),
        ),
      );
      if (carriesRules(parts)) deliveredWithMessages++;
      reference.push(await timed(async () => referenceWork()));
      for (let call = 0; call < CALLS_PER_TURN; call++) {
        const file = files[((turn * CALLS_PER_TURN + call) * 13) % FILES]!;
        tool.push(await timed(() => session.read(file)));
      }
    }
    await stopPlugin(hooks);
    hooks = undefined;
    await created;
    return {
      fill: { name: `tool call, new file (working set 0→${FILES})`, samples: fill },
      tool: { name: `tool call, working set ${FILES}`, samples: tool },
      chat: { name: "follow-up user message", samples: chat },
      reference: { name: "reference work", samples: reference },
      deliveredWithTools,
      deliveredWithMessages,
      calls,
    };
  } finally {
    if (hooks) await stopPlugin(hooks);
    await rm(bench.root, { recursive: true, force: true });
  }
}
