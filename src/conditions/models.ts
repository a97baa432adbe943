/**
 * `models`: the rule applies only while the session's model matches one of
 * its `provider/model` patterns (`anthropic/*`, `openai/gpt-5*`), whatever
 * its mode. Pure.
 */
import { greedyMatch } from "../glob/match.js";
import type { NarrowingKind } from "./contract.js";
import { isNameList, readNames } from "./front-matter-list.js";

const MODEL_KEYS = ["models"] as const;

/** A model as OpenCode names it: `anthropic` and `claude-sonnet-4`. */
export type ModelRef = { providerID: string; modelID: string };

export const models = {
  kind: "models",
  role: "narrows",
  keys: MODEL_KEYS,
  expected: 'a provider/model pattern such as "anthropic/*", a comma-separated list of them, or a YAML list of them',
  inOtherTools: true,
  read: (data) => readNames(data, MODEL_KEYS, true),
  isValue: isNameList,
  json: (patterns) => (patterns ? { models: patterns } : {}),
  fact: "model",
  holds: (patterns, model) => (model ? patterns.find((pattern) => modelMatches(pattern, model)) : undefined),
  option: {
    flag: "--model",
    short: "-m",
    value: "<provider/model>",
    help: "the model the session works on, as opencode.json names it (anthropic/claude-sonnet-4); without it, rules for some models do not apply",
    parse: modelOfText,
  },
  words: {
    noun: "model",
    nouns: "models",
    written: (model) => modelName(model),
    now: (model) =>
      model === undefined ? "the session's model is not known yet" : `the session's model is ${modelName(model)}`,
    workingAs: (model) => (model === undefined ? undefined : `model ${modelName(model)}`),
  },
} as const satisfies NarrowingKind<"models", "model", ModelRef>;

/**
 * `anthropic/claude-sonnet-4` → provider and model, split at the first `/` as OpenCode does
 * (`openrouter/anthropic/claude-x` is OpenRouter's).
 */
function modelOfText(value: string): { fact: ModelRef } | { problem: string } {
  const text = value.trim();
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) {
    return {
      problem: `give the provider and the model as provider/model, such as anthropic/claude-sonnet-4 (as opencode.json's "model" names it)`,
    };
  }
  return { fact: { providerID: text.slice(0, slash), modelID: text.slice(slash + 1) } };
}

/** `provider/model`, as users write it in `opencode.json` and in `models:`. */
const modelName = (model: ModelRef): string => `${model.providerID}/${model.modelID}`;

/**
 * A `models:` pattern against a model, ignoring case: `*` is any run of
 * characters, `/` included (`openrouter/*` takes `openrouter/anthropic/claude-x`),
 * `?` one character. A pattern without a `/` may name the model alone:
 * `gpt-5*` is any provider's `gpt-5…`.
 */
export function modelMatches(pattern: string, model: ModelRef): boolean {
  const glob = pattern.trim().toLowerCase();
  if (wildcardMatch(glob, modelName(model).toLowerCase())) return true;
  return !glob.includes("/") && wildcardMatch(glob, model.modelID.toLowerCase());
}

/** `*` and `?` over characters, by the glob matcher's greedy algorithm: at most text × pattern steps, whatever the pattern. */
function wildcardMatch(pattern: string, text: string): boolean {
  return greedyMatch(
    pattern.length,
    0,
    text.length,
    (p) => pattern[p] === "*",
    (p, t) => pattern[p] === "?" || pattern[p] === text[t],
    undefined,
  );
}
