/**
 * Output helpers for the command line: colours (only on a terminal, never
 * with `NO_COLOR`), sizes, aligned columns. Pure.
 */
import { ACTIVATING, conditionOf } from "../conditions/list.js";
import type { Rule } from "../rule/rule.js";
import { activationOf } from "../select/rule-set.js";
import { estimateTokens, tokensLabel } from "../render/tokens.js";

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

/** Colours on a terminal, unless `NO_COLOR` is set (no-color.org); `FORCE_COLOR` turns them on anywhere. */
export function useColour(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false")
    return true;
  return isTTY && env.TERM !== "dumb";
}

export function makeStyle(colour: boolean): Style {
  const wrap = (open: number, close: number) =>
    colour ? (text: string) => `\x1b[${open}m${text}\x1b[${close}m` : (text: string) => text;
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    green: wrap(32, 39),
    cyan: wrap(36, 39),
  };
}

/** `1234 B ≈ 309 tokens`; `tokens` when they were summed rule by rule (each rule's figure rounded as the panel's is). */
export function sizeLabel(bytes: number, tokens = estimateTokens(bytes)): string {
  return `${bytes} B ${tokensLabel(tokens)}`;
}

/** How a rule activates, in words: `always`, `files: src/**`, `keywords: sql`, `content: "TODO"`, `on request`, `manual (@name)`; a rule also on request says so. */
export function activationLabel(rule: Rule): string {
  const mode = activationOf(rule);
  if (mode === "always") return "always";
  if (mode === "on-request") return "on request";
  if (mode === "manual") return `manual (@${rule.name})`;
  const parts = ACTIVATING.flatMap((kind) => {
    const value = conditionOf(rule, kind);
    return value === undefined ? [] : [kind.words.label(value)];
  });
  const label = parts.join(rule.match === "all" ? " and " : " or ");
  return rule.requestable && rule.description ? `${label}; else on request` : label;
}

/** Rows of cells as aligned columns (the last column is not padded); `width` ignores colour codes. */
export function columns(rows: string[][], indent = "  "): string[] {
  const widths: number[] = [];
  for (const row of rows)
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, visibleLength(cell));
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, index) =>
          index === row.length - 1 ? cell : cell + " ".repeat((widths[index] ?? 0) - visibleLength(cell)),
        )
        .join("  ")
        .trimEnd(),
  );
}

function visibleLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matches ANSI colour codes, which begin with ESC
  return [...text.replace(/\x1b\[\d+m/g, "")].length;
}

/** `n thing` / `n things` */
export function plural(count: number, word: string, pluralWord = `${word}s`): string {
  return `${count} ${count === 1 ? word : pluralWord}`;
}
