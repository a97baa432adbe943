/**
 * Fitting a rules message into its byte budget: each rule's block sized
 * without rendering it, the rules kept by priority, and as much of the
 * on-request list as fits.
 */
import type { Rule } from "../rule/rule.js";
import type { ActiveRule } from "../select/active.js";
import { renderOnRequestSection, ruleSectionBytes } from "./message.js";
import { byteLength, longestPrefix } from "./name-list.js";

/** Block sizes by rule: a rule is never changed once loaded (a changed file is a new object). */
const sectionSizes = new WeakMap<Rule, number>();

export function sectionBytes(rule: Rule): number {
  let size = sectionSizes.get(rule);
  if (size === undefined) {
    size = ruleSectionBytes(rule);
    sectionSizes.set(rule, size);
  }
  return size;
}

/**
 * Which rules fit in `room`: all if they do; otherwise by priority (high
 * first, message order among equals), each that still fits, so a large rule
 * left out does not take smaller, lower-priority ones with it. Given `keep`,
 * adds to the rules already kept.
 */
export function chooseByPriority(
  active: readonly ActiveRule[],
  costs: readonly number[],
  room: number,
  keep = costs.map(() => false),
): boolean[] {
  if (sum(costs) <= room) return keep.fill(true);
  const order = active
    .map((_, i) => i)
    .sort((a, b) => (active[b] as ActiveRule).rule.priority - (active[a] as ActiveRule).rule.priority || a - b);
  let left = room - sum(costs.filter((_, i) => keep[i]));
  for (const i of order) {
    const cost = costs[i] as number;
    if (keep[i] || cost > left) continue;
    keep[i] = true;
    left -= cost;
  }
  return keep;
}

/** How many on-request entries fit in `limit` bytes, with the line counting the rest (`given`: the list of rules given whole). */
export function fitOnRequest(entryBytes: readonly number[], limit: number, given = false): number {
  const prefix = [0];
  for (const bytes of entryBytes) prefix.push((prefix[prefix.length - 1] as number) + bytes);
  // 0 when not even one entry fits: the list is left for a later message rather than sent empty.
  return longestPrefix(entryBytes.length, (k) => onRequestBytes(entryBytes, prefix[k] as number, k, given) <= limit);
}

/** Size of the on-request section listing its first `k` entries (`listedBytes` together) and counting the rest. */
export function onRequestBytes(entryBytes: readonly number[], listedBytes: number, k: number, given = false): number {
  const more = entryBytes.length - k;
  // Heading, the "more" line if any, and a line break after each entry but the last line.
  return byteLength(renderOnRequestSection([], more, given)) + listedBytes + (more > 0 ? k : k - 1);
}

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
