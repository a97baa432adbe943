/**
 * The sentences a rules message says before its rules about rules the
 * session holds: a switch of the session's facts (another agent or model)
 * set some aside or brought them back, their files changed, or were deleted.
 * The switch's words come from the narrowing condition kinds. Pure.
 */
import { conditionOf, factOf, NARROWING, type SessionFacts } from "../conditions/list.js";
import type { Rule } from "../rule/rule.js";
import { orList } from "../rule/warning-words.js";
import { scopeText, workingAsText } from "../select/scope.js";
import { ALL_NAMES_HINT, countLabel, oneLine, type FrameOf } from "./message.js";
import { nameList, type NameList } from "./name-list.js";

/** Fits a list of names to its share of the message. */
type FitList = (list: NameList) => string;

/**
 * The paused and resumed sentences of a switch (none when neither names a
 * rule). The session is named by the facts the rules named are for, and
 * always by its primary one: a switch of agent speaks of agents.
 */
export function switchSentences(
  switched: { paused: readonly string[]; resumed: readonly string[] },
  facts: SessionFacts | undefined,
  byName: (name: string) => Rule | undefined,
  fitted: FitList,
): string[] {
  const concerning = (names: readonly string[]): SessionFacts => {
    const said: Record<string, unknown> = {};
    for (const kind of NARROWING) {
      const named = names.some((name) => {
        const rule = byName(name);
        return rule !== undefined && conditionOf(rule, kind) !== undefined;
      });
      if (kind.words.primary || named) said[kind.fact] = factOf(facts, kind);
    }
    return said as SessionFacts;
  };
  const sentence = (names: readonly string[], frame: (facts: SessionFacts) => FrameOf) => {
    const nameAt = (i: number) => scopedName(byName(names[i] as string), names[i] as string);
    return fitted(nameList(names.length, nameAt, frame(concerning(names))));
  };
  const { paused, resumed } = switched;
  return [
    ...(paused.length > 0 ? [sentence(paused, pausedFrame)] : []),
    ...(resumed.length > 0 ? [sentence(resumed, resumedFrame)] : []),
  ];
}

/** A rule as a switch notice names it: with the agents and models it is for. */
function scopedName(rule: Rule | undefined, name: string): string {
  const only = rule && scopeText(rule);
  return only ? `${oneLine(name)} (${oneLine(only)})` : oneLine(name);
}

/** `agents or models`: what rules set aside may be for. */
const SCOPE_NOUNS = orList(NARROWING.map((kind) => kind.words.nouns));

const pausedFrame =
  (facts: SessionFacts): FrameOf =>
  (named, more) => ({
    before: `Not in effect while you work as ${oneLine(workingAsText(facts))}, though given to you earlier in this conversation: `,
    after: `${more > 0 ? `${named > 0 ? " and" : ""} ${countLabel(more)} more rules for other ${SCOPE_NOUNS}` : ""}. Set them aside until a message says they apply again.`,
  });

const resumedFrame =
  (facts: SessionFacts): FrameOf =>
  (named, more) => ({
    before: `In effect again now that you work as ${oneLine(workingAsText(facts))}, as given to you earlier in this conversation: `,
    after: `${more > 0 ? `${named > 0 ? " and" : ""} ${countLabel(more)} more rules` : ""}.`,
  });

/** The sentence on deleted rule files, around their names (on one line). */
export const removedFrame: FrameOf = (named, more) => {
  if (more === 0) return { before: "The rule file of ", after: " was deleted: that rule no longer applies." };
  const counted = named > 0 ? ` and ${countLabel(more)} more rules` : `${countLabel(more)} rules`;
  return {
    before: "The rule files of ",
    after: `${counted} you were given earlier were deleted and those rules no longer apply: any rule you were given that the \`rule\` tool no longer knows is one of them (${ALL_NAMES_HINT}).`,
  };
};

/** `removedFrame` on a host without the `rule` tool, which cannot be asked which rules remain. */
export const removedFrameWithoutTool: FrameOf = (named, more) => {
  if (more === 0) return removedFrame(named, more);
  const counted = named > 0 ? ` and ${countLabel(more)} more rules` : `${countLabel(more)} rules`;
  return {
    before: "The rule files of ",
    after: `${counted} you were given earlier were deleted and those rules no longer apply.`,
  };
};

/** What changed in rules the session already had, said before the rules themselves. */
export function changeNotice(
  replaced: readonly string[],
  removedText: string | undefined,
  switched: readonly string[],
): string | undefined {
  const sentences = [
    ...(replaced.length > 0 ? [replacedSentence(replaced)] : []),
    ...(removedText ? [removedText] : []),
    ...switched,
  ];
  return sentences.length > 0 ? sentences.join(" ") : undefined;
}

/** Without names, its size is the sentence's own; each name adds its bytes and a separator (names are on one line already, so the header's `oneLine` can only shorten it). */
export function replacedSentence(names: readonly string[]): string {
  return `The rule file of ${names.map(oneLine).join(", ")} changed: the version below replaces the one you were given earlier.`;
}
