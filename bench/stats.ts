/** Figures and their printing, shared by the benchmark's sections. */

export const median = (values: readonly number[]) => quantile(values, 0.5);

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

/** Milliseconds, with fewer decimals as they grow. */
export const ms = (value: number) =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
/** Milliseconds shown as microseconds. */
export const us = (valueMs: number) => (valueMs * 1000).toFixed(valueMs * 1000 >= 100 ? 0 : 1);
export const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
export const ratio = (value: number) => `${value.toFixed(2)}x`;
export const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
export const count = (value: number) => value.toLocaleString("en");

/** A Markdown table: first column left-aligned, the others right-aligned. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((width, i) => (i === 0 ? ":" : "-") + "-".repeat(width) + (i === 0 ? "-" : ":")).join("|")}|`;
  return [line(headers), rule, ...rows.map(line)].join("\n");
}

/** Progress, on stderr so stdout holds only the report. */
export const progress = (text: string) => process.stderr.write(`  … ${text}\n`);

/** Times one awaited call, in milliseconds. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await work();
  return performance.now() - t;
}
