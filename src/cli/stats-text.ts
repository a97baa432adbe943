/**
 * `stats` for a person: a header (whose record, the period, how much of it),
 * the sections read at a glance, then a row per rule. Names from the record
 * (rules, models, paths: a repository names its rules) are shown with control
 * characters as `?`, so none can rewrite the terminal. Pure.
 */
import { displayPath } from "../discover/locations.js";
import type { RecordRead, RecordReadNote } from "../record/read.js";
import type { RecordStats } from "../record/stats.js";
import type { Third } from "../record/stats-compliance.js";
import type { RuleStatsRow } from "../record/stats-rules.js";
import { shownText } from "../render/shown-text.js";
import { columns, plural, type Style } from "./format.js";

/** What `stats` was asked for, its flags as values. */
export interface StatsOptions {
  /** The start of the period, in milliseconds since the epoch. */
  since?: number;
  /** `--since` as given, for the header. */
  sinceText?: string;
  rule?: string;
  model?: string;
  agent?: string;
  json?: boolean;
}

interface StatsView {
  /** Whose record: the project as people read its path, or "all projects". */
  where: string;
  read: RecordRead;
  stats: RecordStats;
  options: StatsOptions;
  home: string;
}

/** Never-applied rules named one a line before the rest are counted. */
const NEVER_APPLIED_SHOWN = 20;

export function statsText(view: StatsView, style: Style): string {
  const { stats } = view;
  const lines = [...headerLines(view, style), ""];
  lines.push(style.bold("Cost in context (≈ tokens)"));
  lines.push(
    ...(stats.costliest.length === 0
      ? [style.dim("  no rule delivered in this period")]
      : columns(
          stats.costliest.map((row) => [
            shownText(row.rule),
            number(row.tokens),
            `≈ ${number(row.tokensPerSession)} a session`,
          ]),
        )),
  );
  lines.push("", style.bold(`Never applied in this period (${plural(stats.neverApplied.sessions, "session")})`));
  const never = stats.neverApplied.rules;
  if (never.length === 0) lines.push(style.dim("  every rule was delivered at least once"));
  for (const rule of never.slice(0, NEVER_APPLIED_SHOWN)) lines.push(`  ${shownText(rule)}`);
  if (never.length > NEVER_APPLIED_SHOWN)
    lines.push(style.dim(`  … and ${never.length - NEVER_APPLIED_SHOWN} more (delivered 0 in the table below)`));
  lines.push("", style.bold("Broken most, by model"));
  lines.push(
    ...(stats.brokenByModel.length === 0
      ? [style.dim("  no call broke a rule in this period")]
      : columns(
          stats.brokenByModel.map((row) => [
            shownText(row.model),
            shownText(row.rule),
            `${row.refused} refused`,
            `${row.warned} warned`,
          ]),
        )),
  );
  lines.push("", style.bold("Compliance over a session (refusals per 100 tool calls)"));
  const thirds = stats.compliance.thirds;
  if (thirds.every((third) => third.toolCalls === 0)) lines.push(style.dim("  no tool calls recorded in this period"));
  else
    lines.push(
      ...columns(
        (["first third", "middle third", "last third"] as const).map((name, index) => thirdRow(name, thirds[index]!)),
      ),
    );
  lines.push("", style.bold("Rules"));
  if (stats.rules.length === 0) lines.push(style.dim("  no rule in this period"));
  else lines.push(...columns([RULE_HEADERS.map((header) => style.dim(header)), ...stats.rules.map(ruleCells)]));
  return `${lines.join("\n")}\n`;
}

function headerLines({ where, read, stats, options, home }: StatsView, style: Style): string[] {
  const only = [
    options.rule === undefined ? undefined : `rule ${options.rule}`,
    options.model === undefined ? undefined : `model ${options.model}`,
    options.agent === undefined ? undefined : `agent ${options.agent}`,
  ].filter((part) => part !== undefined);
  const parts = [
    `Rules record, ${shownText(where)}`,
    periodText(options),
    ...(only.length === 0 ? [] : [`only ${only.join(", ")}`]),
    `${plural(stats.events, "event")} in ${plural(stats.sessions, "session")}, ${plural(stats.toolCalls, "tool call")}`,
  ];
  const lines = [style.bold(parts.join(" · "))];
  if (read.damaged > 0) lines.push(style.yellow(`${plural(read.damaged, "damaged line")} skipped`));
  if (read.newer > 0)
    lines.push(
      style.yellow(
        `${plural(read.newer, "line")} of a newer record version skipped (written by a newer opencode-rulebook)`,
      ),
    );
  for (const note of read.notes) lines.push(style.yellow(shownText(noteText(note, home))));
  return lines;
}

/** `since 2026-11-01`, `the last 7d (since 2026-10-25 14:03)`, `the whole record`. */
function periodText({ since, sinceText }: StatsOptions): string {
  if (since === undefined || sinceText === undefined) return "the whole record";
  if (/^\d{4}-\d{2}-\d{2}$/.test(sinceText.trim())) return `since ${sinceText.trim()}`;
  return `the last ${sinceText.trim()} (since ${localTime(since)})`;
}

function noteText(note: RecordReadNote, home: string): string {
  const shown = displayPath(note.kind === "listing-cut" ? note.folder : note.file, "", home);
  switch (note.kind) {
    case "too-big":
      return `${shown}: not read, ${mebibytes(note.bytes)} is over the ${mebibytes(note.limit)} a record file is read to`;
    case "total-cut":
      return `${shown}: not read, the files before it reached the ${mebibytes(note.limit)} read at most`;
    case "unreadable":
      return `${shown}: could not be read (${note.code})`;
    case "listing-cut":
      return `${shown}: only its first ${number(note.limit)} entries were looked at`;
  }
}

const RULE_HEADERS = [
  "rule",
  "sessions",
  "delivered",
  "tokens",
  "per session",
  "refused",
  "corrected",
  "gave up",
  "warned",
  "requested",
  "left out",
  "last seen",
];

function ruleCells(row: RuleStatsRow): string[] {
  return [
    shownText(row.rule),
    number(row.sessions),
    number(row.delivered),
    number(row.tokens),
    number(row.tokensPerSession),
    number(row.refused),
    row.correctedPercent === null ? number(row.corrected) : `${number(row.corrected)} (${row.correctedPercent}%)`,
    number(row.gaveUp),
    number(row.warned),
    number(row.requested),
    number(row.leftOut),
    row.lastSeen === null ? "–" : localTime(Date.parse(row.lastSeen)),
  ];
}

function thirdRow(name: string, third: Third): string[] {
  return [
    name,
    third.per100 === null ? "–" : third.per100.toFixed(1),
    `(${plural(third.refusals, "refusal")} in ${plural(third.toolCalls, "call")})`,
  ];
}

const number = (value: number) => value.toLocaleString("en");
const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** `2026-11-01 14:03`, local time. */
function localTime(ms: number): string {
  const date = new Date(ms);
  const two = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}
