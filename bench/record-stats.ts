/**
 * `opencode-rulebook stats` over a large record (issue 43): 100,000 events
 * across ~500 sessions and ~200 rules, read from disk and summarised, against
 * the target (under 1 s) and a floor: the same files read whole with
 * `fs.readFile` and split into lines, nothing parsed.
 *
 * The record is generated once, deterministically, as the plugin would write
 * it: JSON lines in a temporary XDG state folder, the older part in the
 * project's rotated file and the rest in its current one. Each session opens
 * with its always-on rules delivered and its on-request rules listed, then
 * tool calls, some delivering a rule by its files, some refused (then
 * corrected or given up), warned or read with the `rule` tool; `verify`
 * findings between sessions. Measured: `readRecord` + `recordStats` with the
 * project's 200 rules known, as the command runs them (sources, through tsx).
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RECORD_VERSION, type RecordEvent } from "../src/record/event.js";
import { recordFiles, recordFolder } from "../src/record/location.js";
import { readRecord } from "../src/record/read.js";
import { recordStats } from "../src/record/stats.js";
import type { KnownRule } from "../src/record/stats-rules.js";
import { count, mb, median, ms, ratio, table, verdict } from "./stats.js";
import { seededRandom } from "../test/support/seeded-random.js";

export const RECORD_EVENTS = 100_000;
export const RECORD_SESSIONS = 500;
export const RECORD_RULES = 200;
export const RECORD_STATS_LIMIT_MS = 1000;

export interface RecordStatsRow {
  events: number;
  sessions: number;
  rules: number;
  bytes: number;
  runs: number;
  /** Medians: readRecord + recordStats, then each alone. */
  totalMs: number;
  readMs: number;
  statsMs: number;
  /** The floor's median: fs.readFile of the same files + split("\n"). */
  floorMs: number;
  /** Events read back (a check: every one generated). */
  read: number;
}

/** The figures at 100,000 events (and 10,000 unless `quick`), medians of 5 runs (3 when `quick`). */
export async function benchRecordStats(quick: boolean): Promise<RecordStatsRow[]> {
  const runs = quick ? 3 : 5;
  const rows: RecordStatsRow[] = [];
  for (const events of quick ? [RECORD_EVENTS] : [RECORD_EVENTS / 10, RECORD_EVENTS])
    rows.push(await measure(events, Math.max(1, Math.round((RECORD_SESSIONS * events) / RECORD_EVENTS)), runs));
  return rows;
}

/** The section as `npm run bench` prints it. */
export function recordStatsReport(rows: readonly RecordStatsRow[]): string[] {
  return [
    `10. stats over a large record: ${count(RECORD_EVENTS)} events, ${count(RECORD_SESSIONS)} sessions, ${RECORD_RULES} rules, JSON lines in the rotated and current file;`,
    `   readRecord + recordStats (the project's rules known), medians. Floor: fs.readFile of the same files + split("\\n"). Target: < ${RECORD_STATS_LIMIT_MS} ms.`,
    table(
      [
        "events",
        "sessions",
        "MB",
        "runs",
        "read + stats ms",
        "read ms",
        "stats ms",
        "floor ms",
        "total/floor",
        "< 1 s",
      ],
      rows.map((row) => [
        count(row.events),
        count(row.sessions),
        mb(row.bytes),
        String(row.runs),
        ms(row.totalMs),
        ms(row.readMs),
        ms(row.statsMs),
        ms(row.floorMs),
        ratio(row.totalMs / row.floorMs),
        verdict(row.totalMs < RECORD_STATS_LIMIT_MS && row.read === row.events) +
          (row.read === row.events ? "" : ` (read ${count(row.read)})`),
      ]),
    ),
  ];
}

async function measure(events: number, sessions: number, runs: number): Promise<RecordStatsRow> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "rulebook-bench-record-")));
  try {
    const projectRoot = join(root, "project");
    const folder = recordFolder({ XDG_STATE_HOME: join(root, "state") }, root);
    await mkdir(folder, { recursive: true });
    const lines = generatedRecord(projectRoot, events, sessions).map((event) => JSON.stringify(event));
    const files = recordFiles(folder, projectRoot);
    const older = Math.round(lines.length * 0.45);
    await writeFile(files.rotated, `${lines.slice(0, older).join("\n")}\n`);
    await writeFile(files.current, `${lines.slice(older).join("\n")}\n`);
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    const known = knownRules();

    const total: number[] = [];
    const read: number[] = [];
    const summed: number[] = [];
    const floor: number[] = [];
    let readBack = 0;
    for (let run = 0; run < runs; run++) {
      let t = performance.now();
      let splitLines = 0;
      for (const path of [files.rotated, files.current])
        splitLines += (await readFile(path, "utf8")).split("\n").length;
      floor.push(performance.now() - t);
      if (splitLines === 0) throw new Error("nothing read");
      t = performance.now();
      const record = await readRecord(folder, { projectRoot });
      const afterRead = performance.now();
      recordStats(record.events, {}, known);
      const end = performance.now();
      total.push(end - t);
      read.push(afterRead - t);
      summed.push(end - afterRead);
      readBack = record.events.length;
    }
    return {
      events,
      sessions,
      rules: RECORD_RULES,
      bytes,
      runs,
      totalMs: median(total),
      readMs: median(read),
      statsMs: median(summed),
      floorMs: median(floor),
      read: readBack,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const ALWAYS = 12; // rules delivered at a session's start
const ON_REQUEST = 20; // rules listed at a session's start
const MODELS = ["anthropic/claude-sonnet-4-5", "openai/gpt-5", "google/gemini-2.5-pro", "anthropic/claude-haiku-4-5"];
const AGENTS = ["build", "plan", "general"];
const TOOLS = ["edit", "write", "read", "bash", "grep", "patch"];
const ruleName = (index: number) => `rule-${String(index).padStart(3, "0")}`;

function knownRules(): KnownRule[] {
  return Array.from({ length: RECORD_RULES }, (_, i) => ({
    name: ruleName(i),
    scope: i % 5 === 0 ? "global" : "project",
    source: i % 5 === 0 ? `~/.config/opencode/rules/${ruleName(i)}.md` : `.opencode/rules/${ruleName(i)}.md`,
    ...(i % 7 === 0 ? { pack: "@acme/rules@2.1.0" } : {}),
  }));
}

/** Exactly `total` events over `sessions` sessions, a minute of calls apart, the same every run. */
function generatedRecord(project: string, total: number, sessions: number): RecordEvent[] {
  const random = seededRandom(43);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const known = knownRules();
  const perSession = Math.floor(total / sessions);
  const events: RecordEvent[] = [];
  let at = Date.UTC(2026, 9, 1);
  for (let s = 0; s < sessions; s++) {
    const end = s === sessions - 1 ? total : events.length + perSession;
    const base = { v: RECORD_VERSION, project, session: `ses_${s.toString(36).padStart(8, "0")}` } as const;
    const context = { agent: pick(AGENTS), model: pick(MODELS) };
    const about = (index: number) => {
      const rule = known[index]!;
      return { rule: rule.name, scope: rule.scope, source: rule.source, ...(rule.pack ? { pack: rule.pack } : {}) };
    };
    const add = (event: Omit<RecordEvent, "v" | "project" | "session" | "at">) => {
      if (events.length >= end) return;
      at += 1000;
      events.push({ ...base, ...context, at, ...event });
    };
    for (let r = 0; r < ALWAYS; r++) add({ kind: "delivered", ...about(r), tokens: 80 + r * 40, trigger: "start" });
    for (let r = 0; r < ON_REQUEST; r++) add({ kind: "listed", ...about(ALWAYS + r) });
    if (random() < 0.2) add({ kind: "left-out", ...about(ALWAYS + ON_REQUEST + Math.floor(random() * 10)) });
    for (let call = 1; events.length < end; call++) {
      const tool = pick(TOOLS);
      const file = `src/${pick(["api", "db", "ui", "lib"])}/file-${Math.floor(random() * 50)}.ts`;
      // The plugin notes the session's count of calls as a turn ends: here every tenth call.
      if (call % 10 === 0) add({ kind: "tool-calls", call });
      const roll = random();
      const rule = ALWAYS + ON_REQUEST + Math.floor(random() * (RECORD_RULES - ALWAYS - ON_REQUEST));
      if (roll < 0.25) add({ kind: "delivered", ...about(rule), tokens: 60 + (rule % 30) * 25, trigger: "file" });
      else if (roll < 0.29) {
        add({ kind: "refused", ...about(rule), call, tool, file, line: 12, pattern: "console.log(" });
        add(
          random() < 0.7
            ? { kind: "corrected", ...about(rule), tool, file }
            : { kind: "gave-up", ...about(rule), tool },
        );
      } else if (roll < 0.31) add({ kind: "warned", ...about(rule), call, tool, file, line: 3, pattern: "TODO" });
      else if (roll < 0.33) add({ kind: "requested", ...about(ALWAYS + Math.floor(random() * ON_REQUEST)) });
    }
    if (s % 25 === 24 && events.length > 0) {
      // A verify finding replaces the session's last event: no session, no agent or model.
      const last = events.pop()!;
      events.push({
        v: RECORD_VERSION,
        at: last.at,
        kind: "verify",
        project,
        ...about(50),
        file: "src/api/x.ts",
        line: 9,
      });
    }
    at += 3_600_000;
  }
  return events;
}

// Alone: `npx tsx bench/record-stats.ts [--quick]`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(recordStatsReport(await benchRecordStats(process.argv.includes("--quick"))).join("\n"));
}
