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
import type { ActiveRule, SessionContext } from "../select/active.js";
import { ruleSetIndex } from "../select/rule-set.js";
import { scopeText, workingAsText, type WorkingAs } from "../select/scope.js";
import { windowNeeds, type WindowState } from "../select/window-needs.js";
import { chooseByPriority, fitOnRequest, onRequestBytes, sectionBytes, sum } from "./fit.js";
import {
  ALL_NAMES_HINT,
  assembleRulesMessage,
  countLabel,
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

export interface ComposeOptions extends WindowState {
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
  context: SessionContext,
  options: ComposeOptions = {},
): ComposedMessage | undefined {
  const { active, changed, onRequest, removed, paused, resumed } = windowNeeds(rules, context, options);
  if (
    active.length === 0 &&
    onRequest.length === 0 &&
    removed.length === 0 &&
    paused.length === 0 &&
    resumed.length === 0
  )
    return undefined;

  const index = ruleSetIndex(rules);
  const workingAs = context.workingAs;
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
  const switchText = (names: readonly string[], frame: FrameOf) => {
    if (names.length === 0) return undefined;
    const list = nameList(names.length, (i) => scopedName(byName(names[i] as string), names[i] as string), frame);
    return list.fit(list.reserve(allowance), NAMED_LIST_MAX_NAMES);
  };
  // The model is named only where a rule named is for some models: a switch of agent speaks of agents.
  const concerning = (names: readonly string[]): WorkingAs | undefined =>
    names.some((name) => (byName(name)?.models?.length ?? 0) > 0) ? workingAs : { agent: workingAs?.agent };
  const pausedText = switchText(paused, pausedFrame(concerning(paused)));
  const resumedText = switchText(resumed, resumedFrame(concerning(resumed)));
  const switchNotice = [...(pausedText ? [pausedText] : []), ...(resumedText ? [resumedText] : [])];

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
  };
}

/** A rule as a switch notice names it: with the agents and models it is for. */
function scopedName(rule: Rule | undefined, name: string): string {
  const only = rule && scopeText(rule);
  return only ? `${oneLine(name)} (${oneLine(only)})` : oneLine(name);
}

const pausedFrame =
  (as: WorkingAs | undefined): FrameOf =>
  (named, more) => ({
    before: `Not in effect while you work as ${oneLine(workingAsText(as))}, though given to you earlier in this conversation: `,
    after: `${more > 0 ? `${named > 0 ? " and" : ""} ${countLabel(more)} more rules for other agents or models` : ""}. Set them aside until a message says they apply again.`,
  });

const resumedFrame =
  (as: WorkingAs | undefined): FrameOf =>
  (named, more) => ({
    before: `In effect again now that you work as ${oneLine(workingAsText(as))}, as given to you earlier in this conversation: `,
    after: `${more > 0 ? `${named > 0 ? " and" : ""} ${countLabel(more)} more rules` : ""}.`,
  });

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

/** What changed in rules the session already had, said before the rules themselves. */
function changeNotice(
  replaced: readonly string[],
  removedText: string | undefined,
  switchNotice: readonly string[],
): string | undefined {
  const sentences = [
    ...(replaced.length > 0 ? [replacedSentence(replaced)] : []),
    ...(removedText ? [removedText] : []),
    ...switchNotice,
  ];
  return sentences.length > 0 ? sentences.join(" ") : undefined;
}

/** Without names, its size is the sentence's own; each name adds its bytes and a separator (names are on one line already, so the header's `oneLine` can only shorten it). */
function replacedSentence(names: readonly string[]): string {
  return `The rule file of ${names.map(oneLine).join(", ")} changed: the version below replaces the one you were given earlier.`;
}

/** The sentence on deleted rule files, around their names (on one line). */
const removedFrame: FrameOf = (named, more) => {
  if (more === 0) return { before: "The rule file of ", after: " was deleted: that rule no longer applies." };
  const counted = named > 0 ? ` and ${countLabel(more)} more rules` : `${countLabel(more)} rules`;
  return {
    before: "The rule files of ",
    after: `${counted} you were given earlier were deleted and those rules no longer apply: any rule you were given that the \`rule\` tool no longer knows is one of them (${ALL_NAMES_HINT}).`,
  };
};

/** `removedFrame` on a host without the `rule` tool, which cannot be asked which rules remain. */
const removedFrameWithoutTool: FrameOf = (named, more) => {
  if (more === 0) return removedFrame(named, more);
  const counted = named > 0 ? ` and ${countLabel(more)} more rules` : `${countLabel(more)} rules`;
  return {
    before: "The rule files of ",
    after: `${counted} you were given earlier were deleted and those rules no longer apply.`,
  };
};

/** The notice's size at most: a blank line after the header, then its sentences joined by spaces. */
function noticeBytes(sentences: readonly string[]): number {
  return sentences.length > 0 ? SEPARATOR + sum(sentences.map(byteLength)) + sentences.length - 1 : 0;
}
