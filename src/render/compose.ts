/**
 * What a rules message holds for a session now: the active rules not yet
 * delivered, within the byte budget, plus the list of on-request rules.
 * Pure; the engine and the command line's `render` share it.
 *
 * The budget is worked out in one pass: each rule's block is rendered once
 * and the message is the join of blocks, so its size is a sum. Repositories
 * are untrusted and may hold thousands of rules: every part of the message
 * that grows with their number (rules, the on-request list, the names of
 * rules left out or deleted) is counted against the budget or bounded.
 */
import type { Rule } from "../rule/rule.js";
import { activationOf, activeRulesFor, type ActiveRule, type SessionContext } from "../select/active.js";
import {
  ALL_NAMES_HINT,
  assembleRulesMessage,
  countLabel,
  oneLine,
  renderLeftOutSection,
  renderOnRequestEntry,
  renderOnRequestSection,
  renderRuleSection,
  rulesMessageHeader,
  type LeftOutEntry,
} from "./message.js";

export interface ComposeOptions {
  /**
   * The rules the session holds in its context window, by name, as the Rule
   * object it was given. A rule is held only if it is that very object (the
   * loader keeps an unchanged rule's object): a new object under a held name
   * is a changed file, delivered again with a notice; a held name no rule has
   * any more is a deleted file, announced.
   */
  delivered?: ReadonlyMap<string, Rule>;
  /** List the on-request rules (the first message of a window does). */
  listOnRequest?: boolean;
  /** Past this size, rules are left out whole (lowest priority first) and named instead; the on-request list is cut short. */
  maxBytes?: number;
}

export interface ComposedMessage {
  text: string;
  /** Active rules the message carries, in message order. */
  included: ActiveRule[];
  /** On-request rules the message lists (a long list is cut short: only those actually listed). */
  onRequest: Rule[];
  /** Active rules that did not fit the budget, readable with the `rule` tool: all of them, named in the message or only counted. */
  leftOut: Rule[];
  /** Held names whose deletion the message announces (named, or counted when there are many). */
  removed: string[];
}

export const DEFAULT_MAX_MESSAGE_BYTES = 48 * 1024;

/** Lists of names outside rule blocks (left out, deleted) stop at this size, or an eighth of the budget, then count the rest. */
const NAMED_LIST_MAX_BYTES = 2048;
/** …and at this many names, which also bounds the work of fitting them. */
const NAMED_LIST_MAX_NAMES = 200;
/** The blank line between two sections of the message. */
const SEPARATOR = 2;

export function composeRulesMessage(rules: readonly Rule[], context: SessionContext, options: ComposeOptions = {}): ComposedMessage | undefined {
  const delivered: ReadonlyMap<string, Rule> = options.delivered ?? new Map();
  const held = (rule: Rule) => delivered.get(rule.name) === rule;
  const active = activeRulesFor(rules.filter((rule) => !held(rule)), context);
  const onRequest = options.listOnRequest ? rules.filter((rule) => activationOf(rule) === "on-request" && !held(rule)) : [];
  const known = new Set(rules.map((rule) => rule.name));
  const removed = [...delivered.keys()].filter((name) => !known.has(name));
  if (active.length === 0 && onRequest.length === 0 && removed.length === 0) return undefined;

  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const allowance = Math.min(NAMED_LIST_MAX_BYTES, Math.floor(maxBytes / 8));
  const changed = active.map(({ rule }) => delivered.has(rule.name));
  const removedText = removed.length > 0 ? fitNames(removed, removedSentence, listReserve(removed, removedSentence, allowance)) : undefined;

  // Each rule's block, rendered once. A changed rule also costs its name in the notice.
  const sections = active.map(({ rule }) => renderRuleSection(rule));
  const sectionBytes = sections.map(byteLength);
  const costs = active.map(({ rule }, i) => (sectionBytes[i] as number) + SEPARATOR + (changed[i] ? byteLength(oneLine(rule.name)) + 2 : 0));
  const entries = onRequest.map(renderOnRequestEntry);
  const entryBytes = entries.map(byteLength);

  // The frame and the notice, the most the notice can be (the replaced sentence without its names); the first section has no separator.
  const fixedNotice = [...(changed.includes(true) ? [replacedSentence([])] : []), ...(removedText ? [removedText] : [])];
  const room = maxBytes - byteLength(assembleRulesMessage([], rulesMessageHeader())) - noticeBytes(fixedNotice) + SEPARATOR;

  // Rules first; the on-request list keeps a fair share; when rules must go, their notice is reserved for.
  const onRequestFull = entries.length > 0 ? onRequestBytes(entryBytes, sum(entryBytes), entries.length) + SEPARATOR : 0;
  const share = Math.min(onRequestFull, Math.floor(maxBytes / 4));
  const allCost = sum(costs);
  const leftOutReserve = active.length > 0 && allCost + share > room ? listReserve(leftOutEntries(active, changed, active.map(() => false)), renderLeftOutSection, allowance) + SEPARATOR : 0;
  const keep = chooseByPriority(active, costs, room - share - leftOutReserve);

  const keptCost = sum(costs.filter((_, i) => keep[i]));
  const leftOutList = leftOutEntries(active, changed, keep);
  // A reservation the rules could not leave (a tiny budget) is taken from the list's share: the notice matters more.
  const leftOutText =
    leftOutList.length > 0 ? fitNames(leftOutList, renderLeftOutSection, Math.min(leftOutReserve, room - keptCost) - SEPARATOR) : undefined;
  const notice = changeNotice(
    active.filter((_, i) => keep[i] && changed[i]).map(({ rule }) => rule.name),
    removedText,
  );
  const header = rulesMessageHeader(undefined, notice);
  const body = [...sections.filter((_, i) => keep[i]), ...(leftOutText !== undefined ? [leftOutText] : [])];

  // The on-request list gets whatever is left, cut at whole entries.
  const used = byteLength(assembleRulesMessage([], header)) + sum(body.map(byteLength)) + SEPARATOR * Math.max(0, body.length - 1);
  const listed = fitOnRequest(entryBytes, maxBytes - used - (body.length > 0 ? SEPARATOR : 0));
  if (listed > 0) body.push(renderOnRequestSection(entries.slice(0, listed), entries.length - listed));

  return {
    text: assembleRulesMessage(body, header),
    included: active.filter((_, i) => keep[i]),
    onRequest: onRequest.slice(0, listed),
    leftOut: active.filter((_, i) => !keep[i]).map(({ rule }) => rule),
    removed,
  };
}

/**
 * Which rules fit in `room`: all if they do; otherwise by priority (high
 * first, message order among equals), each that still fits, so a large rule
 * left out does not take smaller, lower-priority ones with it.
 */
function chooseByPriority(active: readonly ActiveRule[], costs: readonly number[], room: number): boolean[] {
  if (sum(costs) <= room) return costs.map(() => true);
  const order = active.map((_, i) => i).sort((a, b) => (active[b] as ActiveRule).rule.priority - (active[a] as ActiveRule).rule.priority || a - b);
  const keep = costs.map(() => false);
  let left = room;
  for (const i of order) {
    const cost = costs[i] as number;
    if (cost > left) continue;
    keep[i] = true;
    left -= cost;
  }
  return keep;
}

/** The rules left out, as the notice names them: changed ones first (the session holds a stale version), then message order. */
function leftOutEntries(active: readonly ActiveRule[], changed: readonly boolean[], keep: readonly boolean[]): LeftOutEntry[] {
  const entries = active.map(({ rule }, i) => ({ name: rule.name, changed: changed[i] === true, kept: keep[i] === true })).filter((entry) => !entry.kept);
  return [...entries.filter((entry) => entry.changed), ...entries.filter((entry) => !entry.changed)].map(({ name, changed }) => (changed ? { name, changed } : { name }));
}

/** How many on-request entries fit in `limit` bytes, with the line counting the rest. */
function fitOnRequest(entryBytes: readonly number[], limit: number): number {
  const prefix = [0];
  for (const bytes of entryBytes) prefix.push((prefix[prefix.length - 1] as number) + bytes);
  // 0 when not even one entry fits: the list is left for a later message rather than sent empty.
  return longestPrefix(entryBytes.length, (k) => onRequestBytes(entryBytes, prefix[k] as number, k) <= limit);
}

/** Size of the on-request section listing its first `k` entries (`listedBytes` together) and counting the rest. */
function onRequestBytes(entryBytes: readonly number[], listedBytes: number, k: number): number {
  const more = entryBytes.length - k;
  // Heading, the "more" line if any, and a line break after each entry but the last line.
  return byteLength(renderOnRequestSection([], more)) + listedBytes + (more > 0 ? k : k - 1);
}

type NameListRenderer<T> = (named: readonly T[], more: number) => string;

/** The most a bounded list of names takes: all of them, or the wording with none plus `allowance` bytes of names. */
function listReserve<T>(items: readonly T[], render: NameListRenderer<T>, allowance: number): number {
  return Math.min(byteLength(render(items, 0)), byteLength(render([], items.length)) + allowance);
}

/**
 * The list rendered within `limit` bytes: every name if they fit, else the
 * first names that fit and a count of the rest. At worst (a budget too small
 * for any name) the count alone.
 */
function fitNames<T>(items: readonly T[], render: NameListRenderer<T>, limit: number): string {
  const all = render(items, 0);
  if (byteLength(all) <= limit) return all;
  // Each try renders a short sentence; the name cap bounds the tries.
  const named = longestPrefix(Math.min(items.length - 1, NAMED_LIST_MAX_NAMES), (k) => byteLength(render(items.slice(0, k), items.length - k)) <= limit);
  return render(items.slice(0, named), items.length - named);
}

/** The largest `k` ≤ `n` with `fits(k)`, trying `n` first and then counting up from 0 until one does not fit (0 if none does). */
function longestPrefix(n: number, fits: (k: number) => boolean): number {
  if (fits(n)) return n;
  let k = 0;
  while (k + 1 < n && fits(k + 1)) k++;
  return k;
}

/** What changed in rules the session already had, said before the rules themselves. */
function changeNotice(replaced: readonly string[], removedText: string | undefined): string | undefined {
  const sentences = [...(replaced.length > 0 ? [replacedSentence(replaced)] : []), ...(removedText ? [removedText] : [])];
  return sentences.length > 0 ? sentences.join(" ") : undefined;
}

/** Without names, its size is the sentence's own; each name adds its bytes and a separator (names are on one line already, so the header's `oneLine` can only shorten it). */
function replacedSentence(names: readonly string[]): string {
  return `The rule file of ${names.map(oneLine).join(", ")} changed: the version below replaces the one you were given earlier.`;
}

function removedSentence(names: readonly string[], more: number): string {
  const listed = names.map(oneLine).join(", ");
  if (more === 0) return `The rule file of ${listed} was deleted: that rule no longer applies.`;
  const which = names.length > 0 ? `${listed} and ${countLabel(more)} more rules` : `${countLabel(more)} rules`;
  return `The rule files of ${which} you were given earlier were deleted and those rules no longer apply: any rule you were given that the \`rule\` tool no longer knows is one of them (${ALL_NAMES_HINT}).`;
}

/** The notice's size at most: a blank line after the header, then its sentences joined by spaces. */
function noticeBytes(sentences: readonly string[]): number {
  return sentences.length > 0 ? SEPARATOR + sum(sentences.map(byteLength)) + sentences.length - 1 : 0;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
