/**
 * What a rules message holds for a session now: what its window needs
 * (select/window-needs.ts), the active rules within the byte budget
 * (fit.ts), plus the list of on-request rules.
 * Pure; the engine and the command line's `render` share it.
 *
 * The budget is worked out in one pass: the message is the join of blocks,
 * so its size is a sum; each rule's block is sized without being rendered,
 * and only the blocks kept are rendered. The rule set's own lists (by mode,
 * by name) are worked out once per set (select/rule-set.ts). Repositories
 * are untrusted and may hold thousands of rules: every part of the message
 * that grows with their number (rules, the on-request list, the names of
 * rules left out or deleted) is counted against the budget or bounded.
 */
import type { Rule } from "../rule/rule.js";
import type { ActiveRule, SelectionContext } from "../select/active.js";
import { ruleSetIndex } from "../select/rule-set.js";
import type { SameTextRule } from "../select/same-text.js";
import { windowNeeds, type WindowHolding, type WindowNeeds } from "../select/window-needs.js";
import { chooseByPriority, fitOnRequest, onRequestBytes, sectionBytes, sum } from "./fit.js";
import {
  assembleRulesMessage,
  leftOutFrame,
  leftOutFrameWithoutTool,
  leftOutName,
  oneLine,
  renderOnRequestEntry,
  renderOnRequestSection,
  renderRuleSection,
  rulesFrameBytes,
  rulesMessageHeader,
  type FrameOf,
} from "./message.js";
import { byteLength, nameList, type NameList } from "./name-list.js";
import { changeNotice, removedFrame, removedFrameWithoutTool, replacedSentence, switchSentences } from "./notices.js";

export interface ComposeOptions extends WindowHolding {
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
  /** Rules in the window that the message says do not apply now: the session works as another agent or model. */
  paused: string[];
  /** Paused rules the message says apply again: their text is in the window already. */
  resumed: string[];
  /**
   * Active rules the message does not give, their body being another rule's that it gives or the window holds: the text
   * is given, and sized, once.
   */
  sameText: SameTextRule[];
}

export const DEFAULT_MAX_MESSAGE_BYTES = 48 * 1024;

/** Lists of names outside rule blocks (left out, deleted) stop at this size, or an eighth of the budget, then count the rest. */
const NAMED_LIST_MAX_BYTES = 2048;
/** …and at this many names, which also bounds the work of fitting them. */
const NAMED_LIST_MAX_NAMES = 200;
/** The blank line between two sections of the message. */
const SEPARATOR = 2;

export function composeRulesMessage(
  rules: readonly Rule[],
  context: SelectionContext,
  options: ComposeOptions = {},
): ComposedMessage | undefined {
  return composeNeeds(rules, windowNeeds(rules, context, options), context, options);
}

/**
 * The message for what the window needs (`windowNeeds`, worked out by the caller); none when it needs nothing said. A
 * rule whose text goes as another's is not a thing to say: with nothing else, there is no message.
 */
export function composeNeeds(
  rules: readonly Rule[],
  needs: WindowNeeds,
  context: SelectionContext,
  options: ComposeOptions = {},
): ComposedMessage | undefined {
  const { active, changed, onRequest, removed, paused, resumed, sameText } = needs;
  if (
    active.length === 0 &&
    onRequest.length === 0 &&
    removed.length === 0 &&
    paused.length === 0 &&
    resumed.length === 0
  )
    return undefined;

  const index = ruleSetIndex(rules);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // Without the rule tool, on-request rules come whole (`windowNeeds`), the list says when each applies, and nothing points at the tool.
  const whole = options.ruleTool === false;
  const leftOutWords = whole ? leftOutFrameWithoutTool : leftOutFrame;
  const allowance = Math.min(NAMED_LIST_MAX_BYTES, Math.floor(maxBytes / 8));
  const removedList = nameList(
    removed.length,
    (i) => oneLine(removed[i] as string),
    whole ? removedFrameWithoutTool : removedFrame,
  );
  const removedText =
    removed.length > 0 ? removedList.fit(removedList.reserve(allowance), NAMED_LIST_MAX_NAMES) : undefined;
  // Notices name few rules: each is looked up in the set's index, never the whole set walked.
  const byName = (name: string): Rule | undefined => rules[index.positions.get(name)?.[0] ?? -1];
  const switchNotice = switchSentences({ paused, resumed }, context.facts, byName, (list) =>
    list.fit(list.reserve(allowance), NAMED_LIST_MAX_NAMES),
  );

  // Each rule's block, sized without rendering it: only the blocks kept are rendered. A changed rule also costs its name in the notice.
  const costs = active.map(
    ({ rule }, i) => sectionBytes(rule) + SEPARATOR + (changed[i] ? byteLength(oneLine(rule.name)) + 2 : 0),
  );
  const givenWhole = (i: number) => whole && (active[i] as ActiveRule).reason.kind === "on-request";
  const entries = whole
    ? active.flatMap(({ rule }, i) => (givenWhole(i) ? [renderOnRequestEntry(rule)] : []))
    : onRequest.map(renderOnRequestEntry);
  const entryBytes = entries.map(byteLength);

  // The frame and the notice, the most the notice can be (the replaced sentence without its names); the first section has no separator.
  const fixedNotice = [
    ...(changed.includes(true) ? [replacedSentence([])] : []),
    ...(removedText ? [removedText] : []),
    ...switchNotice,
  ];
  const room = maxBytes - rulesFrameBytes(rulesMessageHeader()) - noticeBytes(fixedNotice) + SEPARATOR;

  // Rules first; the on-request list keeps a fair share; when rules must go, their notice is reserved for.
  const onRequestFull =
    entries.length > 0 ? onRequestBytes(entryBytes, sum(entryBytes), entries.length, whole) + SEPARATOR : 0;
  const share = Math.min(onRequestFull, Math.floor(maxBytes / 4));
  const allCost = sum(costs);
  const leftOutReserve =
    active.length > 0 && allCost + share > room
      ? leftOutNames(active, changed, undefined, leftOutWords).reserve(allowance) + SEPARATOR
      : 0;
  const keep = chooseByPriority(active, costs, room - share - leftOutReserve);
  if (leftOutReserve > 0) {
    // The reserve was sized for every active rule's name; what the actual notice leaves goes to rules that still fit.
    const notice = leftOutNames(active, changed, keep, leftOutWords).fit(
      leftOutReserve - SEPARATOR,
      NAMED_LIST_MAX_NAMES,
    );
    const unused = leftOutReserve - SEPARATOR - byteLength(notice);
    // Each rule added takes its name off the notice, which only shrinks.
    if (unused > 0) chooseByPriority(active, costs, room - share - leftOutReserve + unused, keep);
  }

  const keptCost = sum(costs.filter((_, i) => keep[i]));
  const leftOutList = leftOutNames(active, changed, keep, leftOutWords);
  // A reservation the rules could not leave (a tiny budget) is taken from the list's share: the notice matters more.
  const leftOutText =
    leftOutList.count > 0
      ? leftOutList.fit(Math.min(leftOutReserve, room - keptCost) - SEPARATOR, NAMED_LIST_MAX_NAMES)
      : undefined;
  const notice = changeNotice(
    active.filter((_, i) => keep[i] && changed[i]).map(({ rule }) => rule.name),
    removedText,
    switchNotice,
  );
  const header = rulesMessageHeader(undefined, notice);
  const body = [
    ...active.filter((_, i) => keep[i]).map(({ rule }) => renderRuleSection(rule)),
    ...(leftOutText !== undefined ? [leftOutText] : []),
  ];

  // The on-request list gets whatever is left, cut at whole entries; given whole, it names only the rules kept.
  const used = rulesFrameBytes(header) + sum(body.map(byteLength)) + SEPARATOR * Math.max(0, body.length - 1);
  const listEntries = whole
    ? active.flatMap(({ rule }, i) => (givenWhole(i) && keep[i] ? [renderOnRequestEntry(rule)] : []))
    : entries;
  const listed = fitOnRequest(
    whole ? listEntries.map(byteLength) : entryBytes,
    maxBytes - used - (body.length > 0 ? SEPARATOR : 0),
    whole,
  );
  if (listed > 0) body.push(renderOnRequestSection(listEntries.slice(0, listed), listEntries.length - listed, whole));

  return {
    text: assembleRulesMessage(body, header),
    included: active.filter((_, i) => keep[i]),
    onRequest: whole ? [] : onRequest.slice(0, listed),
    leftOut: active.filter((_, i) => !keep[i]).map(({ rule }) => rule),
    removed,
    paused,
    resumed,
    sameText,
  };
}

/** The rules left out (all of them without `keep`), as the notice names them: changed ones first (the session holds a stale version), then message order. */
function leftOutNames(
  active: readonly ActiveRule[],
  changed: readonly boolean[],
  keep: readonly boolean[] | undefined,
  frame: FrameOf,
): NameList {
  const order: number[] = [];
  for (const wanted of [true, false])
    for (const i of active.keys()) if (changed[i] === wanted && keep?.[i] !== true) order.push(i);
  return nameList(
    order.length,
    (j) =>
      leftOutName({
        name: (active[order[j] as number] as ActiveRule).rule.name,
        changed: changed[order[j] as number] === true,
      }),
    frame,
  );
}

/** The notice's size at most: a blank line after the header, then its sentences joined by spaces. */
function noticeBytes(sentences: readonly string[]): number {
  return sentences.length > 0 ? SEPARATOR + sum(sentences.map(byteLength)) + sentences.length - 1 : 0;
}
