/**
 * Rules for one agent or one model (`agents:`, `models:` in front matter):
 * whether the agent and model a session works as now are the ones a rule is
 * for. Pure. Scope narrows whatever else decides a rule (its activation mode,
 * its globs, its keywords); only the user's own `@name` and the model's own
 * read with the `rule` tool reach past it (active.ts).
 */
import type { Rule } from "../rule/rule.js";
import { greedyMatch } from "../glob/match.js";

/** A model as OpenCode names it: `anthropic` and `claude-sonnet-4`. */
export type ModelRef = { providerID: string; modelID: string };

/** The agent and model a session works as now; either may not be known yet (a new session before its first message). */
export interface WorkingAs {
  agent?: string;
  model?: ModelRef;
}

/** What of the scope a rule matched, for people: the agent, and the model pattern. */
export interface ScopeMatch {
  agent?: string;
  model?: string;
}

/** A rule has a scope when it names agents or models. */
export const isScoped = (rule: Pick<Rule, "agents" | "models">): boolean =>
  (rule.agents?.length ?? 0) > 0 || (rule.models?.length ?? 0) > 0;

/**
 * The part of the rule's scope that `as` matches (empty for a rule without
 * one), or undefined when the rule is not for this agent or model. An agent
 * or model that is not known yet matches no rule that names agents or models:
 * a rule for `plan` never reaches a session that may not be planning.
 */
export function scopeMatch(rule: Pick<Rule, "agents" | "models">, as: WorkingAs | undefined): ScopeMatch | undefined {
  const match: ScopeMatch = {};
  if (rule.agents && rule.agents.length > 0) {
    const agent = as?.agent;
    if (agent === undefined || !rule.agents.some((name) => sameName(name, agent))) return undefined;
    match.agent = agent;
  }
  if (rule.models && rule.models.length > 0) {
    const model = as?.model;
    const pattern = model && rule.models.find((glob) => modelMatches(glob, model));
    if (!pattern) return undefined;
    match.model = pattern;
  }
  return match;
}

export const inScope = (rule: Pick<Rule, "agents" | "models">, as: WorkingAs | undefined): boolean =>
  scopeMatch(rule, as) !== undefined;

/** Agent names as OpenCode's config keys spell them; a rule's `Plan` still means `plan`. */
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** `provider/model`, as users write it in `opencode.json` and in `models:`. */
export const modelName = (model: ModelRef): string => `${model.providerID}/${model.modelID}`;

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

/** The scope in words: `agent plan`, `agents plan, build; model anthropic/*`. */
export function scopeText(rule: Pick<Rule, "agents" | "models">): string | undefined {
  const parts: string[] = [];
  if (rule.agents?.length) parts.push(`${rule.agents.length === 1 ? "agent" : "agents"} ${rule.agents.join(", ")}`);
  if (rule.models?.length) parts.push(`${rule.models.length === 1 ? "model" : "models"} ${rule.models.join(", ")}`);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/**
 * Why a rule's scope leaves it out, naming only what it concerns:
 * `for agent plan only; the session works as agent build`, `for model
 * anthropic/* only; the session's model is not known yet`. Undefined when in scope.
 */
export function outOfScopeText(rule: Pick<Rule, "agents" | "models">, as: WorkingAs | undefined): string | undefined {
  const reasons: string[] = [];
  if (rule.agents?.length && scopeMatch({ agents: rule.agents }, as) === undefined) {
    const now =
      as?.agent === undefined ? "the session's agent is not known yet" : `the session works as agent ${as.agent}`;
    reasons.push(`for ${scopeText({ agents: rule.agents })} only; ${now}`);
  }
  if (rule.models?.length && scopeMatch({ models: rule.models }, as) === undefined) {
    const now =
      as?.model === undefined
        ? "the session's model is not known yet"
        : `the session's model is ${modelName(as.model)}`;
    reasons.push(`for ${scopeText({ models: rule.models })} only; ${now}`);
  }
  return reasons.length > 0 ? reasons.join("; ") : undefined;
}

/** What a session works as, in words: `agent build on model openai/gpt-5`. */
export function workingAsText(as: WorkingAs | undefined): string {
  const agent = as?.agent === undefined ? "an agent not known yet" : `agent ${as.agent}`;
  return as?.model === undefined ? agent : `${agent} on model ${modelName(as.model)}`;
}
