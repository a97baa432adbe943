/**
 * Issue 40: a hostile repository's patterns against a checked write. The
 * project holds a rule with 50 patterns the DFA gives up on (each within the
 * size limits); the user's global rule forbids `console.log(`. A write of
 * long lines that ends with `console.log(` is checked through the plugin's
 * entry as OpenCode 1 calls it. Measured: how long the whole check takes,
 * the longest the event loop is held meanwhile (a 1 ms timer's worst lateness,
 * `monitorEventLoopDelay`), and that the user's rule still refuses the write.
 * The floor is the check's own budget (1 s): the worst hold is printed as a
 * share of it.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Plugin } from "@opencode-ai/plugin";
import { benchProject, isolateEnv } from "./fixtures.js";
import { fakeClient, startPlugin, stopPlugin } from "./plugin.js";

export const HOSTILE_PATTERNS = 50;
/** The check's bound (engine HOOK_LIMITS.checkMs). */
export const CHECK_BUDGET_MS = 1000;

export interface HostileHold {
  /** Each round: the whole check, and the longest the loop was held during it, milliseconds. */
  checkMs: number[];
  holdMs: number[];
  /** Every round's write was refused by the user's rule. */
  refused: boolean;
}

const hostileRule = (): string => {
  const patterns = Array.from({ length: HOSTILE_PATTERNS }, (_, i) => `  - "/(a|b|c|d)*a(a|b|c|d){${150 + i}}x${i}/"`);
  return `---\nalwaysApply: false\nforbid:\n${patterns.join("\n")}\n---\nHeavy.\n`;
};

export async function measureHostileHold(plugin: Plugin, rounds: number): Promise<HostileHold> {
  const bench = await benchProject("rulebook-bench-hostile-");
  isolateEnv(bench.home);
  const globalRules = join(bench.home, ".config", "opencode", "rules");
  await mkdir(globalRules, { recursive: true });
  await writeFile(
    join(globalRules, "no-console.md"),
    '---\nalwaysApply: false\nforbid: "console.log("\n---\nLog through the logger.\n',
  );
  await writeFile(join(bench.rulesDir, "heavy.md"), hostileRule());
  const hooks = await startPlugin(plugin, bench, fakeClient().client);
  const before = hooks["tool.execute.before"];
  if (!before) throw new Error("the plugin has no tool.execute.before hook");
  const content = [...Array.from({ length: 200 }, (_, i) => `${"abcd".repeat(1000)}${i}`), 'console.log("x")'].join(
    "\n",
  );
  const result: HostileHold = { checkMs: [], holdMs: [], refused: true };
  try {
    for (let i = 0; i < rounds; i++) {
      const monitor = monitorEventLoopDelay({ resolution: 1 });
      monitor.enable();
      const started = performance.now();
      let refused = false;
      try {
        await before(
          { tool: "write", sessionID: "ses_hostile_bench", callID: `call_${i}` },
          { args: { filePath: join(bench.project, `src/w${i}.ts`), content } },
        );
      } catch {
        refused = true;
      }
      result.checkMs.push(performance.now() - started);
      monitor.disable();
      result.holdMs.push(monitor.max / 1e6);
      result.refused &&= refused;
    }
    return result;
  } finally {
    await stopPlugin(hooks);
    await rm(bench.root, { recursive: true, force: true });
  }
}
