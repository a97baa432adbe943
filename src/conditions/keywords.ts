/**
 * `keywords` (alias `topics`): the rule applies when a keyword is a whole
 * word of the user's prompt (keyword-match.ts: case-insensitive,
 * Unicode-aware). For one prompt, the keywords of the whole rule set that
 * match are found by an index, at a cost that follows the prompt. Pure.
 */
import type { ActivatingKind } from "./contract.js";
import { isNameList, readNames } from "./front-matter-list.js";
import { keywordIndex, matchingKeyword, type KeywordIndex } from "./keyword-match.js";
import { perRuleSet } from "./per-rule-set.js";

const KEYWORD_KEYS = ["keywords", "topics"] as const;

/** One of the rule's keywords, a whole word of the user's prompt. */
type KeywordMatch = {
  kind: "keyword";
  keyword: string;
};

type KeywordsSession = {
  /** The user's prompt text, for keywords. */
  prompt?: string;
};

export const keywords = {
  kind: "keywords",
  role: "activates",
  keys: KEYWORD_KEYS,
  expected: "a word, a comma-separated list of words, or a YAML list of words",
  inOtherTools: true,
  read: (data) => readNames(data, KEYWORD_KEYS, false),
  isValue: isNameList,
  json: (words) => ({ keywords: words ?? [] }),
  metKind: "keyword",
  met(words, _rule, session) {
    const keyword = session.prompt ? matchingKeyword(session.prompt, words) : undefined;
    return keyword === undefined ? undefined : { kind: "keyword", keyword };
  },
  candidates(rules, session, _placesOf, into) {
    if (session.prompt) for (const place of keywordsOfRules(rules).matching(session.prompt)) into.push(place);
  },
  isStoredMet: (met) => typeof met.keyword === "string",
  words: {
    label: (words) => `keywords: ${words.join(", ")}`,
    missing: (words) => `keywords: none of ${words.join(", ")} in the prompt`,
    met: (match) => `keyword "${match.keyword}" in the prompt`,
    explain: (match) => `keywords: "${match.keyword}" in the prompt`,
    panel: (match, shown) => `keyword "${shown(match.keyword)}"`,
    alone: "its keywords",
  },
} as const satisfies ActivatingKind<"keywords", readonly string[], KeywordMatch, KeywordsSession>;

/** Every rule's keywords, each filed with the rule's place. */
const keywordsOfRules = perRuleSet((rules): KeywordIndex<number> => {
  const index = keywordIndex<number>();
  rules.forEach((rule, place) => {
    for (const keyword of (rule.conditions[keywords.kind] as readonly string[] | undefined) ?? [])
      index.add(keyword, place);
  });
  return index;
});
