/**
 * `explain <file>… [--prompt] [--agent] [--model]`: for a session that
 * touches those files, receives that prompt and works as that agent on that
 * model, which rules would be delivered and why, and which would not and why.
 * The reasons are the engine's own (whyRuleApplies, whyRuleDoesNotApply), and
 * delivery is composeRulesMessage's, budget included, and a text two rules
 * share delivered once. A rule's figure is what it costs in the message
 * (render/tokens.ts), as `list` and the Rules panel say.
 */
import {
  conditionOf,
  factOf,
  kindOfMet,
  NARROWING,
  type AnyNarrowing,
  type ScopeMatch,
  type SessionFacts,
} from "../conditions/list.js";
import { composeRulesMessage } from "../render/compose.js";
import { originText, tierOf } from "../rule/origin.js";
import type { Rule } from "../rule/rule.js";
import { whyRuleDoesNotApply, type ActiveRule } from "../select/active.js";
import { conditionText, reasonText, sameTextWords, type ActivationReason } from "../select/reasons.js";
import type { LoadedRules } from "../formats/load.js";
import { result, type CommandResult, type ProjectContext } from "./context.js";
import { columns, plural, sizeLabel, type Style } from "./format.js";
import { byteLength } from "../render/name-list.js";
import { estimateTokens, ruleTokens, tokensLabel } from "../render/tokens.js";
import { enforceJson, forbiddingRules, forbiddingText } from "./forbids.js";
import { hypotheticalSession } from "./session.js";

interface ExplainOptions {
  prompt?: string;
  json?: boolean;
  /** `--agent`, `--model`: the session's facts. */
  workingAs?: SessionFacts;
}

interface Verdict {
  rule: Rule;
  delivered: boolean;
  reason: string;
  /** For a delivered rule with a scope (`agents:`, `models:`): what of it the session met (the agent, the model pattern). */
  for?: ScopeMatch;
  /** A rule that applies, not delivered: its text goes as this rule's. */
  sameTextAs?: Rule;
}

export function explainCommand(
  project: ProjectContext,
  loaded: LoadedRules,
  files: readonly string[],
  options: ExplainOptions,
  style: Style,
): CommandResult {
  const session = hypotheticalSession(project, loaded.rules, files, options.prompt, options.workingAs);
  const facts = session.workingAs;
  const composed = composeRulesMessage(loaded.rules, session.context, {
    listOnRequest: true,
    maxBytes: project.options.maxMessageBytes,
  });
  const included = new Map((composed?.included ?? []).map((active) => [active.rule, active]));
  const leftOut = new Set(composed?.leftOut ?? []);
  const sameText = new Map((composed?.sameText ?? []).map(({ rule, as }) => [rule, as]));
  const verdicts: Verdict[] = loaded.rules.map((rule) => {
    const applies = included.get(rule);
    if (applies !== undefined) return deliveredVerdict(applies);
    const as = sameText.get(rule);
    if (as !== undefined) {
      const carried = leftOut.has(as)
        ? `${as.name} is left out by the budget`
        : `its text is delivered once, as ${as.name}`;
      return { rule, delivered: false, reason: `${sameTextWords(as.name)}: applies; ${carried}`, sameTextAs: as };
    }
    if (leftOut.has(rule)) {
      return {
        rule,
        delivered: false,
        reason: `budget: applies, but left out of the ${project.options.maxMessageBytes}-byte message (named in it, read with the rule tool)`,
      };
    }
    const why = whyRuleDoesNotApply(rule, session.context);
    return {
      rule,
      delivered: false,
      reason: why === undefined ? "not delivered" : `${why}${flagHint(rule, facts)}`,
    };
  });
  const messageBytes = composed ? byteLength(composed.text) : 0;
  const forbidding = forbiddingRules(loaded.rules, session.files, session.workingAs);

  if (options.json) {
    const entry = ({ rule, reason, for: scope, sameTextAs }: Verdict) => ({
      name: rule.name,
      scope: rule.scope,
      source: rule.source,
      tier: tierOf(rule),
      ...(rule.pack ? { pack: rule.pack.label } : {}),
      displayPath: rule.displayPath,
      path: rule.path,
      tokens: ruleTokens(rule),
      reason,
      ...(scope ? { for: scope } : {}),
      ...(sameTextAs ? { sameTextAs: sameTextAs.name } : {}),
    });
    const json = {
      files: session.files,
      prompt: session.prompt ?? null,
      ...Object.fromEntries(NARROWING.map((kind) => [kind.fact, factText(kind, facts) ?? null])),
      mentioned: session.mentioned,
      delivered: verdicts.filter((verdict) => verdict.delivered).map(entry),
      notDelivered: verdicts.filter((verdict) => !verdict.delivered).map(entry),
      onRequest: (composed?.onRequest ?? []).map((rule) => rule.name),
      leftOut: (composed?.leftOut ?? []).map((rule) => rule.name),
      sameText: (composed?.sameText ?? []).map(({ rule, as }) => ({ name: rule.name, as: as.name })),
      forbidding: forbidding.map(({ rule, files, applies }) => ({
        name: rule.name,
        ...enforceJson(rule),
        files,
        applies,
      })),
      message: { bytes: messageBytes, tokens: estimateTokens(messageBytes), maxBytes: project.options.maxMessageBytes },
    };
    return result(`${JSON.stringify(json, null, 2)}\n`);
  }

  const lines: string[] = [];
  lines.push(`Files: ${session.files.length > 0 ? session.files.join(", ") : style.dim("(none)")}`);
  if (session.prompt !== undefined) lines.push(`Prompt: ${JSON.stringify(session.prompt)}`);
  // Said when it matters: a rule names agents (or models), or the flag was given.
  for (const kind of NARROWING) {
    const given = factText(kind, facts);
    // A fact read from the project (the branch) is said only where a rule names it: every repository has one.
    const named = loaded.rules.some((rule) => conditionOf(rule, kind) !== undefined);
    if (!named && (given === undefined || kind.observe !== undefined)) continue;
    const { noun, nouns } = kind.words;
    const { flag } = kind.option;
    const missing = style.dim(`(not given: rules for some ${nouns} do not apply; see ${flag})`);
    lines.push(`${noun[0]?.toUpperCase()}${noun.slice(1)}: ${given ?? missing}`);
  }
  lines.push("");
  const delivered = verdicts.filter((verdict) => verdict.delivered);
  const notDelivered = verdicts.filter((verdict) => !verdict.delivered);
  lines.push(style.bold(`Delivered (${delivered.length})`));
  if (delivered.length === 0) lines.push(style.dim("  (none)"));
  lines.push(
    ...columns(
      delivered.map(({ rule, reason }) => [
        style.green(`✓ ${rule.name}`),
        tokensLabel(ruleTokens(rule)),
        withOrigin(rule, reason),
      ]),
    ),
  );
  lines.push("");
  lines.push(style.bold(`Not delivered (${notDelivered.length})`));
  if (notDelivered.length === 0) lines.push(style.dim("  (none)"));
  lines.push(
    ...columns(notDelivered.map(({ rule, reason }) => [style.dim(`✗ ${rule.name}`), withOrigin(rule, reason)])),
  );
  lines.push("");
  // Said when some rule forbids: what, where, and whether it holds for this agent and model.
  if (forbidding.length > 0) {
    lines.push(style.bold(`Rules that forbid (${forbidding.length})`));
    lines.push(
      ...columns(
        forbidding.map((entry) => [
          entry.applies ? entry.rule.name : style.dim(entry.rule.name),
          entry.mode,
          forbiddingText(entry, session.files, session.workingAs),
        ]),
      ),
    );
    lines.push("");
  }
  lines.push(
    composed
      ? `Message: ${sizeLabel(messageBytes)} (budget ${project.options.maxMessageBytes} B); ${plural(delivered.length, "rule")} delivered, ${composed.onRequest.length} listed on request, ${composed.leftOut.length} left out${sameText.size > 0 ? `, ${sameText.size} same text as another (delivered once)` : ""}`
      : "Message: none (no rule applies and none is on request)",
  );
  return result(`${lines.join("\n")}\n`);
}

/** The reason, and where the rule comes from when that is a pack or the managed tier. */
const withOrigin = (rule: Rule, reason: string) => {
  const from = originText(rule);
  return from === undefined ? reason : `${reason} (${from})`;
};

/** The session's fact of `kind` as people write it (`plan`, `anthropic/claude-sonnet-4`), if given. */
function factText(kind: AnyNarrowing, facts: SessionFacts): string | undefined {
  const fact = factOf(facts, kind);
  return fact === undefined ? undefined : kind.words.written(fact);
}

/** A delivered rule's verdict: the engine's reason, and for a rule with a scope, what of it it is delivered for. */
function deliveredVerdict({ rule, reason, scope }: ActiveRule): Verdict {
  const words = readableReason(reason);
  const met = (scope ?? {}) as Readonly<Record<string, string | undefined>>;
  const parts = NARROWING.flatMap((kind) =>
    met[kind.fact] === undefined ? [] : [`${kind.words.noun} ${met[kind.fact]}`],
  );
  if (!scope || parts.length === 0) return { rule, delivered: true, reason: words };
  return { rule, delivered: true, reason: `${words}; for ${parts.join(" and ")}`, for: scope };
}

/** For a rule out of scope because a flag was not given: which flag would give it. */
function flagHint(rule: Rule, facts: SessionFacts): string {
  const out = NARROWING.filter((kind) => {
    const names = conditionOf(rule, kind) as readonly string[] | undefined;
    return names !== undefined && kind.holds(names, factOf(facts, kind)) === undefined;
  });
  // Another agent or model was given: no flag would make it apply.
  if (out.some((kind) => factOf(facts, kind) !== undefined)) return "";
  const missing = out.map((kind) => kind.option.flag);
  return missing.length > 0 ? ` (give ${missing.join(" and ")})` : "";
}

/**
 * The engine's reason in the command's words, which name the condition as
 * whyRuleDoesNotApply does: `files: X matched G; keywords: "k" in the prompt; content: X contains "p"`.
 */
function readableReason(reason: ActivationReason): string {
  if (reason.kind !== "conditions") return reasonText(reason);
  return reason.met.map((met) => kindOfMet(met.kind)?.words.explain(met) ?? conditionText(met)).join("; ");
}
