/**
 * `opencode-rulebook stats`, run in-process through `run` (no build needed):
 * a temporary project and home, a record written by hand in its own
 * XDG_STATE_HOME.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliTree, runInProcess } from "../support/cli-in-process.js";
import { parseSince } from "../../src/cli/stats.js";
import { RECORD_VERSION, type RecordEvent, type RecordKind } from "../../src/record/event.js";
import { recordFiles, recordFolder } from "../../src/record/location.js";
import type { TempTree } from "../support/temp-folder.js";

let tree: TempTree;
let env: Record<string, string | undefined>;

beforeEach(async () => {
  ({ tree, env } = await cliTree("rulebook-stats-"));
  await tree.write(tree.projectRules, {
    "costly.md": "Costly rule.\n",
    "no-console.md": "No console.\n",
    "never-used.md": "Never used.\n",
  });
});
afterEach(() => tree.cleanup());

const stats = (...args: string[]) => runInProcess(["stats", ...args], { env, home: tree.home, cwd: tree.project });

const NOW = Date.now();
const HOUR = 3_600_000;

const ev = (kind: RecordKind, fields: Partial<RecordEvent> = {}): RecordEvent => ({
  v: RECORD_VERSION,
  at: NOW - HOUR,
  kind,
  project: tree.project,
  session: "s1",
  agent: "build",
  model: "anthropic/claude-x",
  ...fields,
});

/** Two sessions of 3 calls; `costly` delivered in both, `no-console` refused at call 3 of s1 and corrected. */
function sessionEvents(): RecordEvent[] {
  const calls = (session: string, model: string) => [1, 2, 3].map((call) => ev("tool-calls", { session, model, call }));
  return [
    ev("delivered", { rule: "costly", tokens: 400, trigger: "start" }),
    ev("delivered", { rule: "costly", tokens: 400, trigger: "start", session: "s2", model: "openai/gpt-5" }),
    ev("delivered", { rule: "no-console", tokens: 10, trigger: "file" }),
    ...calls("s1", "anthropic/claude-x"),
    ...calls("s2", "openai/gpt-5"),
    ev("refused", { rule: "no-console", call: 3, tool: "edit", file: "a.ts", pattern: "console.log(" }),
    ev("corrected", { rule: "no-console", tool: "edit", file: "a.ts" }),
    ev("delivered", { rule: "costly", tokens: 400, at: NOW - 30 * 24 * HOUR, session: "old" }),
  ];
}

async function writeRecord(events: readonly RecordEvent[], extra = "", project = tree.project): Promise<string> {
  const folder = recordFolder(env, tree.home);
  await mkdir(folder, { recursive: true });
  const { current } = recordFiles(folder, project);
  await writeFile(current, events.map((event) => `${JSON.stringify(event)}\n`).join("") + extra);
  return current;
}

describe("stats", () => {
  it("prints the header, the sections and the table", async () => {
    await writeRecord(sessionEvents(), 'not json\n{"v":1}\n');
    const { stdout, stderr, code } = await stats();
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const [header, damaged] = stdout.split("\n");
    expect(header).toMatch(/^Rules record, .*project · the whole record · 12 events in 3 sessions, 6 tool calls$/);
    expect(damaged).toBe("2 damaged lines skipped");
    for (const section of [
      "Cost in context (≈ tokens)",
      "Never applied in this period (3 sessions)",
      "Broken most, by model",
      "Compliance over a session (refusals per 100 tool calls)",
      "Rules",
    ])
      expect(stdout).toContain(`\n${section}\n`);
    expect(stdout).toMatch(/\n {2}costly +1,200 +≈ 400 a session\n/);
    expect(stdout).toMatch(/Never applied in this period \(3 sessions\)\n {2}never-used\n/);
    expect(stdout).toMatch(/\n {2}anthropic\/claude-x +no-console +1 refused +0 warned\n/);
    expect(stdout).toMatch(/\n {2}first third +0\.0 +\(0 refusals in 2 calls\)\n/);
    expect(stdout).toMatch(/\n {2}last third +50\.0 +\(1 refusal in 2 calls\)\n/);
    expect(stdout).toMatch(/\n {2}rule +sessions +delivered +tokens +per session +refused +corrected/);
    expect(stdout).toMatch(/\n {2}no-console +1 +1 +10 +10 +1 +1 \(100%\) +0 +0 +0 +0 +\d{4}-\d\d-\d\d \d\d:\d\d\n/);
    expect(stdout).toMatch(/\n {2}never-used +0 +0 +0 +0 +0 +0 +0 +0 +0 +0 +–\n/);
  });

  it("prints the figures as JSON with the project, the damaged lines and the files read, and nothing else", async () => {
    const file = await writeRecord(sessionEvents(), "garbage\n");
    const { stdout, stderr, code } = await stats("--json", "--since", "7d");
    expect([code, stderr]).toEqual([0, ""]);
    const json = JSON.parse(stdout);
    expect(Object.keys(json)).toEqual([
      "project",
      "since",
      "events",
      "sessions",
      "toolCalls",
      "rules",
      "costliest",
      "neverApplied",
      "brokenByModel",
      "compliance",
      "damaged",
      "newer",
      "files",
      "missing",
      "notes",
    ]);
    expect(json).toMatchObject({ project: tree.project, events: 11, sessions: 2, toolCalls: 6, damaged: 1 });
    expect(json.files).toEqual([file]);
    expect(Date.parse(json.since)).toBeGreaterThan(NOW - 7 * 24 * HOUR - 60_000);
    expect(json.rules.find((row: { rule: string }) => row.rule === "costly")).toMatchObject({
      scope: "project",
      source: ".opencode/rules/costly.md",
      sessions: 2,
      delivered: 2,
      tokens: 800,
      tokensPerSession: 400,
    });
    expect(json.neverApplied).toEqual({ rules: ["never-used"], sessions: 2 });
    expect(json.compliance.thirds[2]).toEqual({ toolCalls: 2, refusals: 1, per100: 50 });
  });

  it("filters by rule, model and agent, and says so in the header", async () => {
    await writeRecord(sessionEvents());
    const { stdout } = await stats("--rule", "costly", "--model", "gpt-5", "--agent", "build");
    expect(stdout.split("\n")[0]).toContain(
      "· only rule costly, model gpt-5, agent build · 4 events in 1 session, 3 tool calls",
    );
    const json = JSON.parse((await stats("--json", "--model", "gpt-5")).stdout);
    expect(json.rules.find((row: { rule: string }) => row.rule === "costly").tokens).toBe(400);
  });

  it("says plainly when there is no record, and exits 0", async () => {
    const { stdout, stderr, code } = await stats();
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toMatch(
      /^No record yet for .*project \(.*rulebook\/project-[0-9a-f]{16}\.jsonl\): the plugin writes one as sessions run; it is off when the option record is false or OPENCODE_RULEBOOK_RECORD=0\.\n$/,
    );
    const json = await stats("--json");
    expect(JSON.parse(json.stdout)).toMatchObject({ missing: true, events: 0, files: [] });
    expect(json.stderr).toMatch(/^No record yet/);
  });

  it("reads every project's record with --all", async () => {
    await writeRecord(sessionEvents());
    await writeRecord(
      [ev("delivered", { rule: "elsewhere", tokens: 5, session: "x", project: "/other" })],
      "",
      "/other",
    );
    const { stdout, code } = await stats("--all");
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(
      /^Rules record, all projects · the whole record · 13 events in 4 sessions, 6 tool calls/,
    );
    expect(stdout).toMatch(/\n {2}elsewhere +1 +1 +5/);
    const json = JSON.parse((await stats("--all", "--json")).stdout);
    expect(json.project).toBeNull();
    expect(json.files).toHaveLength(2);
    // Without the project's rules, never applied names those the record mentions.
    expect(json.neverApplied.rules).toEqual([]);
  });

  it("says a damaged record's count of lines, without a crash", async () => {
    await writeRecord([], '\u0000\u0001garbage\n[]\n{"v":1,"kind":"delivered"}\n');
    const { stdout, code } = await stats();
    expect(code).toBe(0);
    expect(stdout).toContain("0 events in 0 sessions");
    expect(stdout).toContain("3 damaged lines skipped");
  });

  it("shows names from the record with control characters as ?: a repository's rule name cannot rewrite the terminal", async () => {
    const evil = "evil\u001b]0;owned\u0007\nrule";
    await writeRecord([
      ev("delivered", { rule: evil, tokens: 5, trigger: "file" }),
      ev("refused", { rule: evil, model: "x\u001b[2Jy", call: 1 }),
    ]);
    const { stdout, code } = await stats();
    expect(code).toBe(0);
    const controls = [...stdout].filter((char) => char !== "\n" && (char.charCodeAt(0) < 0x20 || char === "\u007f"));
    expect(controls).toEqual([]);
    expect(stdout).toContain("evil?]0;owned??rule");
    expect(stdout).toContain("x?[2Jy");
  });

  it.each(["7", "yesterday", "7x", "2026-13-01", "2026-02-30", ""])(
    "refuses --since %j with exit status 2",
    async (value) => {
      await writeRecord(sessionEvents());
      const { stdout, stderr, code } = await stats("--since", value);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toContain(`--since ${value}: not a period or a date; use 7d, 24h or 2w`);
    },
  );
});

describe("parseSince", () => {
  const now = Date.UTC(2026, 10, 15, 12);
  it("reads a period back from now, or the start of a local day", () => {
    expect(parseSince("24h", now)).toBe(now - 24 * HOUR);
    expect(parseSince("7d", now)).toBe(now - 7 * 24 * HOUR);
    expect(parseSince("2w", now)).toBe(now - 14 * 24 * HOUR);
    expect(parseSince("2026-11-01", now)).toBe(new Date(2026, 10, 1).getTime());
  });
});
