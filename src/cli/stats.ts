/**
 * `stats`: what the rules did, from the record the plugin keeps (docs/record.md):
 * what each rule cost in context, how often calls broke it and were corrected,
 * which rules were never applied, and how compliance moves over a session.
 * Reading happens in the action; the rest is pure.
 */
import type { Command } from "commander";
import { displayPath } from "../discover/locations.js";
import { readRecord, type RecordRead } from "../record/read.js";
import { recordFiles, recordFolder } from "../record/location.js";
import { recordStats, type StatsFilter } from "../record/stats.js";
import type { KnownRule } from "../record/stats-rules.js";
import type { Rule } from "../rule/rule.js";
import { loadProjectRules, result, UsageError, type CommandResult } from "./context.js";
import type { Style } from "./format.js";
import { projectCommand, type CommandWiring } from "./rules-commands.js";
import { type StatsOptions, statsText } from "./stats-text.js";

interface StatsFlags {
  cwd?: string;
  since?: string;
  rule?: string;
  model?: string;
  agent?: string;
  json?: boolean;
  all?: boolean;
}

export function addStatsCommand(program: Command, wiring: CommandWiring): void {
  projectCommand(
    program,
    "stats",
    "what the rules did, from the plugin's record: context each rule cost, refusals and corrections, rules never applied",
  )
    .option("--since <when>", "only events since: a period back from now (7d, 24h, 2w) or a date (2026-11-01)")
    .option("--rule <name>", "only this rule")
    .option("--model <model>", "only events with this model (provider/model, or the model alone)")
    .option("--agent <agent>", "only events with this agent")
    .option("--all", "every project's record, not only this project's")
    .option("--json", "machine-readable output")
    .action(async (flags: StatsFlags) => {
      const { since, cwd, all, ...rest } = flags;
      const options: StatsOptions = {
        ...rest,
        ...(since === undefined ? {} : { since: parseSince(since, Date.now()), sinceText: since }),
      };
      const folder = recordFolder(wiring.io.env, wiring.io.home);
      const home = wiring.io.home;
      if (all) {
        const read = await readRecord(folder, { all: true });
        wiring.done(statsCommand({ read, folder, home, project: undefined }, options, wiring.style));
        return;
      }
      const context = wiring.project({ cwd });
      const read = await readRecord(folder, { projectRoot: context.projectRoot });
      // The rules the project has now name those never applied; with no record, there is no need to load them.
      const known = read.missing ? [] : knownRules((await loadProjectRules(context)).rules);
      const input = { read, folder, home, project: context.projectRoot, known };
      wiring.done(statsCommand(input, options, wiring.style));
    });
}

interface StatsInput {
  read: RecordRead;
  folder: string;
  home: string;
  /** The project's root folder; undefined for every project. */
  project: string | undefined;
  known?: readonly KnownRule[];
}

/** The command's output for what was read. */
function statsCommand(input: StatsInput, options: StatsOptions, style: Style): CommandResult {
  const { read, project, home } = input;
  const filter: StatsFilter = { since: options.since, rule: options.rule, model: options.model, agent: options.agent };
  const stats = recordStats(read.events, filter, project === undefined ? undefined : input.known);
  if (options.json) {
    const json = {
      project: project ?? null,
      ...stats,
      damaged: read.damaged,
      newer: read.newer,
      files: read.files,
      missing: read.missing,
      notes: read.notes,
    };
    return result(`${JSON.stringify(json, null, 2)}\n`, read.missing ? `${missingText(input)}\n` : "");
  }
  if (read.missing) return result(`${missingText(input)}\n`);
  const where = project === undefined ? "all projects" : displayPath(project, "", home);
  return result(statsText({ where, read, stats, options, home }, style));
}

/** No record: where it would be, and why there may be none. */
function missingText({ project, folder, home }: StatsInput): string {
  const where =
    project === undefined
      ? `in ${displayPath(folder, "", home)}`
      : `for ${displayPath(project, "", home)} (${displayPath(recordFiles(folder, project).current, "", home)})`;
  return `No record yet ${where}: the plugin writes one as sessions run; it is off when the option record is false or OPENCODE_RULEBOOK_RECORD=0.`;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `7d`, `24h`, `2w` back from `now`, or a date (`2026-11-01`, from the start of that day, local time). */
export function parseSince(value: string, now: number): number {
  const period = /^(\d{1,5})([hdw])$/.exec(value.trim());
  if (period) return now - Number(period[1]) * UNIT_MS[period[2]!]!;
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const start = new Date(year, month - 1, day);
    if (start.getFullYear() === year && start.getMonth() === month - 1 && start.getDate() === day)
      return start.getTime();
  }
  throw new UsageError(
    `--since ${value}: not a period or a date; use 7d, 24h or 2w (days, hours, weeks back) or a date such as 2026-11-01`,
  );
}

/** The project's rules as the record names them. */
function knownRules(rules: readonly Rule[]): KnownRule[] {
  return rules.map((rule) => ({
    name: rule.name,
    scope: rule.scope,
    source: rule.displayPath,
    ...(rule.pack ? { pack: rule.pack.label } : {}),
  }));
}
