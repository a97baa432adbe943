/**
 * Issue 43 — what the rules did, on every host of the scenario table: a
 * scripted session with a keyword rule, a file rule, a refused write and its
 * correction, and a compaction; then `opencode-rulebook stats --json` over
 * the record the plugin kept reports exactly those counts, and the record's
 * file is the user's alone (0600).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test, vi } from "vitest";
import { runInProcess } from "../support/cli-in-process.js";
import { recordFolder } from "../../src/record/location.js";
import { EVERY_HOST, hostForTheTable } from "../support/scenario-checks.js";

const RULES: Record<string, string> = {
  "house.md": "---\nalwaysApply: true\n---\nMARK-REC-HOUSE: be brief.\n",
  "migrations.md": "---\nkeywords: [migration]\n---\nMARK-REC-MIGRATION: follow the checklist.\n",
  "typescript.md": "---\nglobs: src/**/*.ts\n---\nMARK-REC-TS: prefer strict types.\n",
  "no-console.md":
    '---\nalwaysApply: false\nglobs: src/**/*.ts\nforbid:\n  - "console.log("\n---\nMARK-REC-LOG: log through src/log.ts.\n',
};

interface StatsRow {
  rule: string;
  sessions: number;
  delivered: number;
  refused: number;
  corrected: number;
  correctedPercent: number | null;
  gaveUp: number;
  warned: number;
  leftOut: number;
  tokens: number;
}
interface StatsJson {
  sessions: number;
  toolCalls: number;
  damaged: number;
  rules: StatsRow[];
}

describe.each(EVERY_HOST)("%s", (_name, driver) => {
  const place = { project: "", env: {} as Record<string, string> };
  const host = hostForTheTable(driver, {
    projectRules: RULES,
    projectFiles: { "src/log.ts": "export const log = (text: string) => text;\n" },
    prepare: (given) => Object.assign(place, given),
  });

  test("stats --json reports exactly what the session did with each rule; the record is 0600", {
    timeout: 90_000,
  }, async () => {
    const session = await host.newSession();
    const file = host.projectPath("src/x.ts");
    await host.turn(session, "Write the migration.", [
      { write: file, content: 'export function up() {\n  console.log("up");\n}\n' },
      { write: file, content: 'import { log } from "./log";\nexport function up() {\n  log("up");\n}\n' },
      { answer: "done" },
    ]);
    await host.compactThenTurn(session, "Go on.");

    const expected = {
      house: { delivered: 2, refused: 0, corrected: 0, gaveUp: 0 },
      migrations: { delivered: 2, refused: 0, corrected: 0, gaveUp: 0 },
      typescript: { delivered: 2, refused: 0, corrected: 0, gaveUp: 0 },
      // Its text went with the refusal, and again after the compaction (its glob holds for src/x.ts).
      "no-console": { delivered: 2, refused: 1, corrected: 1, correctedPercent: 100, gaveUp: 0 },
    };
    const check = async () => {
      const stats = await statsJson();
      expect(stats.damaged).toBe(0);
      expect(stats.sessions).toBe(1);
      expect(stats.toolCalls).toBe(2);
      for (const [rule, counts] of Object.entries(expected))
        expect(
          stats.rules.find((row) => row.rule === rule),
          rule,
        ).toMatchObject({ sessions: 1, ...counts });
      return stats;
    };
    // The plugin writes its record in batches, a second apart at most.
    const stats = await vi.waitFor(check, { timeout: 10_000, interval: 500 });
    for (const row of stats.rules) expect(row.tokens, row.rule).toBeGreaterThan(0);
    // Nothing more comes late: the counts are the session's, once each.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await check();

    const folder = recordFolder(place.env, place.env.HOME ?? "");
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    expect(statSync(join(folder, files[0] ?? "")).mode & 0o777).toBe(0o600);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
  });

  async function statsJson(): Promise<StatsJson> {
    const statsPlace = { env: { ...place.env, NO_COLOR: "1" }, home: place.env.HOME ?? "", cwd: place.project };
    const { stdout, code } = await runInProcess(["stats", "--json"], statsPlace);
    expect(code).toBe(0);
    return JSON.parse(stdout) as StatsJson;
  }
});
