/**
 * `npm run bench`: what opencode-rulebook costs, against the targets of
 * issue 7. A script, not a test: it prints figures and says which targets are
 * met; nothing here fails a build.
 *
 * 1. Discovery + parse (`loadRules`) of 10 … 10,000 rule files, against the
 *    floor of reading the same files with plain `fs` in the same process
 *    (recursive readdir + readFile): median of several warm runs, as a ratio.
 * 2. Per-event cost of the `chat.message` and `tool.execute.after` hooks with
 *    1,000 rules and a working set of 1,000 files (median and p99, µs), and
 *    whether it grows with the number of past events (first vs last window).
 * 3. Memory held per 1,000 rules (child process with --expose-gc).
 * 4. Time from `session.created` to the rules message being stored, in the
 *    real OpenCode (median of 10 sessions).
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Rulebook } from "../src/engine.js";
import { MARKER_KEY } from "../src/deliver/prompt.js";
import { nodeRuleFs } from "../src/sources/fs.js";
import { loadRules } from "../src/sources/load.js";
import { benchProject, startBenchRulebook, writeRules } from "./fixtures.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const started = performance.now();
const quick = process.argv.includes("--quick");

// ---------------------------------------------------------------- helpers

const median = (values: number[]) => quantile(values, 0.5);
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const us = (valueMs: number) => (valueMs * 1000).toFixed(valueMs * 1000 >= 100 ? 0 : 1);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(" | ")} |`;
  return [line(headers), `|${widths.map((width, i) => (i === 0 ? ":" : "-") + "-".repeat(width) + (i === 0 ? "-" : ":")).join("|")}|`, ...rows.map(line)].join("\n");
}
const log = (text: string) => process.stderr.write(`  … ${text}\n`);

// ---------------------------------------------------------------- 1. discovery vs the plain-fs floor

/** The least any loader must do, with the same async API the plugin uses: list the folder tree and read every rule file. */
async function plainFsFloor(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && /\.(md|mdc)$/i.test(entry.name)).map((entry) => join(entry.parentPath ?? entry.path, entry.name));
  const contents = await Promise.all(files.map((file) => readFile(file)));
  return contents.length;
}

/** The same with blocking calls: no thread-pool round trips, the lowest cost the disk and kernel allow. */
function plainFsSyncFloor(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /\.(md|mdc)$/i.test(entry.name)) {
      readFileSync(join(entry.parentPath ?? entry.path, entry.name));
      count++;
    }
  }
  return count;
}

interface DiscoveryRow {
  files: number;
  runs: number;
  loadMs: number;
  floorMs: number;
  syncFloorMs: number;
}

async function benchDiscovery(count: number): Promise<DiscoveryRow> {
  const bench = await benchProject("rulebook-bench-disc-");
  try {
    await writeRules(bench.rulesDir, count);
    const context = { env: {}, home: bench.home, directory: bench.project, worktree: bench.project, fs: nodeRuleFs, maxRuleBytes: 65536 };
    const runs = quick ? 3 : count >= 10_000 ? 5 : count >= 1000 ? 9 : 15;
    // Warm: the page cache, the modules, V8's compiled code.
    for (let i = 0; i < (count >= 10_000 ? 1 : 2); i++) {
      await plainFsFloor(bench.rulesDir);
      const loaded = await loadRules(context);
      if (loaded.rules.length !== count || loaded.warnings.length > 0) throw new Error(`loadRules found ${loaded.rules.length} of ${count} rules, ${loaded.warnings.length} warnings`);
    }
    const load: number[] = [];
    const floor: number[] = [];
    const syncFloor: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Alternate, so drift (other processes, GC) hits all alike.
      let t = performance.now();
      if ((await plainFsFloor(bench.rulesDir)) !== count) throw new Error("floor read the wrong number of files");
      floor.push(performance.now() - t);
      t = performance.now();
      if (plainFsSyncFloor(bench.rulesDir) !== count) throw new Error("sync floor read the wrong number of files");
      syncFloor.push(performance.now() - t);
      t = performance.now();
      await loadRules(context);
      load.push(performance.now() - t);
    }
    return { files: count, runs, loadMs: median(load), floorMs: median(floor), syncFloorMs: median(syncFloor) };
  } finally {
    await rm(bench.root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- 2. per-event cost

/** An OpenCode client whose calls answer at once, with data shaped like OpenCode's. */
function fakeClient() {
  let clock = Date.now();
  let n = 0;
  return {
    session: {
      prompt: async (options: { path: { id: string } }) => {
        n++;
        return { data: { info: { id: `msg_bench${n}`, sessionID: options.path.id, role: "user", time: { created: ++clock } }, parts: [] }, response: { status: 200 } };
      },
      messages: async () => ({ data: [], response: { status: 200 } }),
    },
    app: { log: async () => ({ data: true, response: { status: 200 } }) },
  };
}

interface HookTimings {
  name: string;
  samples: number[];
  window: number;
}

function summary(timings: HookTimings) {
  const { samples, window } = timings;
  return {
    median: median(samples),
    p99: quantile(samples, 0.99),
    first: median(samples.slice(0, window)),
    last: median(samples.slice(-window)),
  };
}

async function benchEvents(): Promise<{ hooks: HookTimings[]; growing: HookTimings; rules: number; files: number }> {
  const RULES = 1000;
  const FILES = 1000;
  const bench = await benchProject("rulebook-bench-events-");
  let rulebook: Rulebook | undefined;
  try {
    await writeRules(bench.rulesDir, RULES);
    // The working set: 1,000 source files spread over 100 modules (so 100 of the 500 glob rules match some file).
    const files: string[] = [];
    for (let i = 0; i < FILES; i++) {
      const rel = `src/mod-${(i % 100) * 2 + 1}/part-${Math.floor(i / 100)}/file-${i}.ts`;
      files.push(join(bench.project, rel));
    }
    await Promise.all(files.map(async (file) => {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, "export const x = 1;\n");
    }));
    rulebook = await startBenchRulebook(bench, fakeClient());
    if (rulebook.loaded().rules.length !== RULES) throw new Error("engine did not load the rules");
    const session = "ses_bench";
    await rulebook.onEvent({ type: "session.created", properties: { info: { id: session, title: "bench", projectID: "p", directory: bench.project, version: "1", time: { created: Date.now(), updated: Date.now() } } } } as never);

    let call = 0;
    const toolAfter = (tool: string, args: Record<string, unknown>, output: string) =>
      rulebook!.onToolAfter({ tool, sessionID: session, callID: `call_${++call}`, args }, { title: tool, output, metadata: {} });
    const read = (file: string) => toolAfter("read", { filePath: file }, "<file>\n00001| export const x = 1;\n</file>");

    // The working set grows to 1,000 files: glob results listing 10 new files each (100 events, measured: cost vs working-set size).
    const growing: number[] = [];
    for (let i = 0; i < FILES; i += 10) {
      const t = performance.now();
      await toolAfter("glob", { pattern: "src/**/*.ts" }, files.slice(i, i + 10).join("\n"));
      growing.push(performance.now() - t);
    }
    const known = rulebook.report(session)?.files.length;
    if (known !== FILES) throw new Error(`working set holds ${known} files, expected ${FILES}`);

    // As many events as fit about 12 s per hook (at least 300, at most 3,000), judged from the last events above.
    const estimateMs = median(growing.slice(-10));
    const events = Math.max(300, Math.min(quick ? 1000 : 3000, Math.floor(12_000 / Math.max(estimateMs, 0.001))));
    const window = Math.min(1000, Math.floor(events / 3));
    const chat: number[] = [];
    let partClock = Date.now() * 0x1000;
    for (let i = 0; i < events; i++) {
      const messageID = `msg_u${i}`;
      const output = {
        message: { id: messageID, sessionID: session, role: "user" as const, time: { created: Date.now() }, agent: "build", model: { providerID: "p", modelID: "m" } },
        parts: [
          {
            id: `prt_${(partClock++).toString(16).padStart(12, "0").slice(-12)}abcdefghijklmn`,
            sessionID: session,
            messageID,
            type: "text",
            text: `Please look at src/mod-${(i % 100) * 2 + 1}/part-0/file-${i % 100}.ts again and keep the tests passing (step ${i}).`,
          },
        ] as never[],
      };
      const t = performance.now();
      await rulebook.onChatMessage({ sessionID: session, agent: "build", model: { providerID: "p", modelID: "m" } }, output);
      chat.push(performance.now() - t);
    }
    const tool: number[] = [];
    for (let i = 0; i < events; i++) {
      const t = performance.now();
      await read(files[i % FILES]!);
      tool.push(performance.now() - t);
    }
    return {
      hooks: [
        { name: "chat.message", samples: chat, window },
        { name: "tool.execute.after", samples: tool, window },
      ],
      growing: { name: "tool.execute.after, working set 0→1,000 files", samples: growing, window: 10 },
      rules: RULES,
      files: FILES,
    };
  } finally {
    rulebook?.dispose();
    await rm(bench.root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- 3. memory (child process with --expose-gc)

async function benchMemory(counts: number[]): Promise<Record<string, { loadRulesBytes: number; engineBytes: number }>> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", "--import", "tsx", join(REPO, "bench", "memory.ts"), ...counts.map(String)], {
    cwd: REPO,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

// ---------------------------------------------------------------- 4. session.created → rules message stored, real OpenCode

async function benchRealOpencode(sessions: number): Promise<{ serverMs: number[]; observedMs: number[] } | { skipped: string }> {
  const dist = join(REPO, "dist", "index.js");
  if (!existsSync(dist)) return { skipped: "dist/index.js missing (npm run build)" };
  const { startOpencode } = await import("../test/e2e/harness/opencode.js");
  const oc = await startOpencode({ pluginPath: dist, projectRules: { "style.md": "Write small functions.\n" } });
  try {
    const serverMs: number[] = [];
    const observedMs: number[] = [];
    for (let i = 0; i < sessions + 1; i++) {
      const t0 = performance.now();
      const created = await oc.client.session.create({ body: { title: `bench ${i}` } });
      const session = created.data as { id: string; time: { created: number } } | undefined;
      if (!session) throw new Error(`session.create failed: ${JSON.stringify(created.error)}`);
      let stored: { time: { created: number } } | undefined;
      const deadline = Date.now() + 10_000;
      while (!stored && Date.now() < deadline) {
        const messages = (await oc.client.session.messages({ path: { id: session.id } })).data ?? [];
        const found = messages.find((message) => message.parts.some((part) => (part as { metadata?: Record<string, unknown> }).metadata?.[MARKER_KEY]));
        if (found) stored = found.info as { time: { created: number } };
        else await new Promise((resolve) => setTimeout(resolve, 2));
      }
      if (!stored) throw new Error(`no rules message in session ${session.id} after 10 s`);
      if (i === 0) continue; // the first session warms OpenCode's code paths
      observedMs.push(performance.now() - t0);
      serverMs.push(stored.time.created - session.time.created);
    }
    return { serverMs, observedMs };
  } finally {
    await oc.stop();
  }
}

// ---------------------------------------------------------------- run

const cpus = os.cpus();
const machine = `${cpus[0]?.model.trim() ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;

const out: string[] = [];
out.push(`opencode-rulebook benchmark${quick ? " (--quick)" : ""}`);
out.push(`Machine: ${machine}`);
out.push("");

const counts = [10, 100, 1000, 10_000];
const discovery: DiscoveryRow[] = [];
for (const count of counts) {
  log(`discovery, ${count} files`);
  discovery.push(await benchDiscovery(count));
}
out.push("1. Discovery + parse (loadRules) vs the floor: plain fs reading the same files in the same process, median of warm runs");
out.push("   Floor: fs.promises readdir({ recursive }) + readFile of every rule file at once. Target: loadRules within 2x the floor.");
out.push("   (Sync floor, for reference: readdirSync + readFileSync, no thread-pool round trips.)");
out.push(
  table(
    ["rule files", "runs", "loadRules ms", "floor ms", "ratio", "target ≤ 2x", "sync floor ms", "vs sync"],
    discovery.map((row) => [
      row.files.toLocaleString("en"),
      String(row.runs),
      ms(row.loadMs),
      ms(row.floorMs),
      `${(row.loadMs / row.floorMs).toFixed(2)}x`,
      verdict(row.loadMs <= 2 * row.floorMs),
      ms(row.syncFloorMs),
      `${(row.loadMs / row.syncFloorMs).toFixed(1)}x`,
    ]),
  ),
);
out.push("");

log("per-event cost");
const events = await benchEvents();
out.push(`2. Per-event cost with ${events.rules.toLocaleString("en")} rules (half always-on, half globs + keywords) and a working set of ${events.files.toLocaleString("en")} files`);
out.push("   Target: under 1 ms per event; no growth with the number of past events (first vs last window of events).");
out.push(
  table(
    ["hook", "events", "median µs", "p99 µs", "first µs", "last µs", "last/first", "target < 1 ms", "no growth"],
    [...events.hooks, events.growing].map((hook) => {
      const s = summary(hook);
      const growth = s.last / s.first;
      const growingRow = hook === events.growing;
      return [hook.name, String(hook.samples.length), us(s.median), us(s.p99), us(s.first), us(s.last), `${growth.toFixed(2)}`, verdict(s.median < 1), growingRow ? "(grows with files)" : verdict(growth < 1.5)];
    }),
  ),
);
out.push(`   first/last: medians of the first and last ${events.hooks[0]!.window} events, working set fixed at 1,000 files.`);
out.push("   Last row: 100 glob results of 10 new files each; first/last = medians of the first and last 10 (working set ~10 vs ~1,000 files).");
out.push("");

log("memory");
const memoryCounts = [1000, 10_000];
const memory = await benchMemory(memoryCounts);
out.push("3. Memory held per 1,000 rules (heapUsed after forced GC, separate process with --expose-gc)");
out.push(
  table(
    ["rules", "loadRules result MB", "per 1,000 rules MB", "started engine MB", "engine per 1,000 MB"],
    memoryCounts.map((count) => {
      const m = memory[count]!;
      return [count.toLocaleString("en"), mb(m.loadRulesBytes), mb((m.loadRulesBytes / count) * 1000), mb(m.engineBytes), mb((m.engineBytes / count) * 1000)];
    }),
  ),
);
out.push("");

log("real OpenCode: session.created → rules message stored");
let realRows: string[][];
try {
  const real = await benchRealOpencode(10);
  if ("skipped" in real) realRows = [["skipped", real.skipped, "", ""]];
  else
    realRows = [
      ["server clock: session created → rules message created", String(real.serverMs.length), ms(median(real.serverMs)), ms(Math.max(...real.serverMs))],
      ["client view: session.create call → rules message readable", String(real.observedMs.length), ms(median(real.observedMs)), ms(Math.max(...real.observedMs))],
    ];
} catch (error) {
  realRows = [["failed", (error as Error).message.split("\n")[0] ?? "", "", ""]];
}
out.push("4. Time from session.created to the rules message being stored, real OpenCode (opencode serve, 1 rule)");
out.push(table(["measure", "sessions", "median ms", "max ms"], realRows));
out.push("");

const discoveryMet = discovery.every((row) => row.loadMs <= 2 * row.floorMs);
const eventsMet = events.hooks.every((hook) => summary(hook).median < 1);
const growthMet = events.hooks.every((hook) => summary(hook).last / summary(hook).first < 1.5);
out.push("Targets");
out.push(
  table(
    ["target", "result"],
    [
      ["discovery within 2x the plain-fs floor (all sizes)", `${verdict(discoveryMet)}${discoveryMet ? "" : ` (missed at ${discovery.filter((row) => row.loadMs > 2 * row.floorMs).map((row) => row.files.toLocaleString("en")).join(", ")} files)`}`],
      ["per-event cost under 1 ms at 1,000 rules (median)", verdict(eventsMet)],
      ["per-event cost does not grow with past events (fixed working set)", verdict(growthMet)],
    ],
  ),
);
out.push(`Total bench time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(out.join("\n"));
