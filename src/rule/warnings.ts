/**
 * Warnings as typed values: what went wrong (`code`), how bad it is
 * (`severity`: an error means something was not loaded), the file or folder
 * concerned, the line when there is one, and the details the text needs.
 *
 * The English text is written here and nowhere else, by `warningText`, and
 * only where a person reads it: the log, `check`, `list`. (A detail may be a
 * reason another module words: an OS error code, the YAML parser's message,
 * why a glob cannot be used.) Code that decides anything looks at the code
 * and the details, never at the text.
 */
import type { Details, FoundValue, Severity } from "./warning-codes.js";
import { TEXTS } from "./warning-texts.js";

export type WarningCode = keyof Details;

/** What a warning says, before it is tied to a file: its code, details and line. */
export type WarningFacts = { [C in WarningCode]: { code: C; line?: number } & Details[C] }[WarningCode];

/** The facts of the codes that have detail `K`, without it: a caller adds `K` to them (the rule's name, the reference). */
export type FactsWithout<K extends string> = WarningFacts extends infer F
  ? F extends Record<K, unknown>
    ? Omit<F, K>
    : never
  : never;

export type RuleWarning = WarningFacts & {
  severity: Severity;
  /** Absolute path of the file (or folder) concerned. */
  path: string;
};

/** The severity of a warning with this code. */
export function severityOf(code: WarningCode): Severity {
  return TEXTS[code].severity;
}

/** The warning `facts` state about `path`, with its severity. */
export function ruleWarning(path: string, facts: WarningFacts): RuleWarning {
  return { ...facts, severity: severityOf(facts.code), path } as RuleWarning;
}

/** The warning that rule `rule`, of the file at `path`, was skipped, and why. */
export function ruleSkipped(path: string, rule: string, facts: FactsWithout<"rule">): RuleWarning {
  return ruleWarning(path, { ...facts, rule } as WarningFacts);
}

/** The value `found` where another was expected, as a warning keeps it (never the value itself: it may be huge). */
export function foundValue(value: unknown): FoundValue {
  if (value === null) return "nothing";
  if (Array.isArray(value)) return "list";
  if (value instanceof Date) return "date";
  if (typeof value === "object") return "mapping";
  return { type: typeof value, json: String(JSON.stringify(value)).slice(0, 60) };
}

/** The warning in words, for a person: what is wrong and what was done about it. */
export function warningText(warning: RuleWarning): string {
  return (TEXTS[warning.code].text as (w: RuleWarning) => string)(warning);
}

/** `path:line: text`, as the log and `list` show a warning (`path` as the caller shows it). */
export function warningLine(warning: RuleWarning, path: string = warning.path): string {
  return `${path}${warning.line ? `:${warning.line}` : ""}: ${warningText(warning)}`;
}
