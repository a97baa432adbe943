/**
 * The Rules panel as lines of text for a column of a given width: pure, so
 * what a person sees is tested without a terminal. The full layout gives
 * each rule its own line, with what it costs (`≈ 120 tokens`), and its reason
 * below (wrapped at words, continued under it), the rules in context headed by
 * their count and total; below `COMPACT_BELOW` columns each rule is one line,
 * its name and the kind of reason, cut short, and the title gives the total.
 * Every list is bounded: a repository may hold thousands of rules, the
 * sidebar shows the first ones and counts the rest.
 */
import { kindOfMet, NARROWING, type ConditionMet, type ScopeMatch } from "../conditions/list.js";
import type { RuleWhy } from "../session/marker.js";
import { enforcedText, sameTextWords, type ActivationReason } from "../select/reasons.js";
import { shownText } from "../render/shown-text.js";
import { orList } from "../rule/warning-words.js";
import { tokensLabel } from "../render/tokens.js";
import type { PanelRule, RulesPanel } from "./rules-panel.js";
import { cut, wrap } from "./wrap.js";

export type LineTone = "title" | "heading" | "rule" | "reason" | "muted" | "warning";

export interface PanelLine {
  text: string;
  tone: LineTone;
}

/** Narrower than this, the compact layout. OpenCode 1.18's sidebar leaves 37 columns. */
export const COMPACT_BELOW = 30;
/** Rules shown per list; the rest are counted. */
export const MAX_LISTED = 25;
/** Where to see the warnings. */
const CHECK_COMMAND = "npx opencode-rulebook check";

export function panelLines(panel: RulesPanel | undefined, width: number): PanelLine[] {
  if (!panel) return [];
  const columns = Math.max(8, Math.floor(width));
  return columns < COMPACT_BELOW ? compactLines(panel, columns) : fullLines(panel, columns);
}

function fullLines(panel: RulesPanel, width: number): PanelLine[] {
  const lines: PanelLine[] = [{ text: "Rules", tone: "title" }];
  const add = (text: string, tone: LineTone, indent = 0) =>
    lines.push(...wrap(text, width, indent).map((line) => ({ text: line, tone })));
  const rules = (
    heading: string,
    list: readonly PanelRule[],
    because: (rule: PanelRule) => string | undefined,
    total = "",
  ) => {
    if (list.length === 0) return;
    add(`${heading} (${list.length}${total})`, "heading");
    for (const rule of list.slice(0, MAX_LISTED)) {
      lines.push(...nameLines(rule, width).map((text) => ({ text, tone: "rule" as const })));
      const reason = because(rule);
      if (reason) add(`  ${reason}`, "reason", 2);
    }
    if (list.length > MAX_LISTED) add(`  + ${list.length - MAX_LISTED} more`, "muted", 2);
  };
  const names = (heading: string, list: readonly string[], count = list.length) => {
    if (count === 0) return;
    add(`${heading} (${count})`, "heading");
    const more = count - Math.min(list.length, MAX_LISTED);
    add(`  ${list.slice(0, MAX_LISTED).map(clean).join(", ")}${more > 0 ? `, + ${more} more` : ""}`, "muted", 2);
  };
  const cost = costOf(panel);
  const total = cost && ` · ${tokensLabel(cost.tokens)}${cost.known < cost.of ? ` for ${cost.known}` : ""}`;
  rules("In context", panel.inContext, (rule) => rule.why && whyText(rule.why), total);
  rules("Set aside for now", panel.setAside, (rule) =>
    rule.why?.scope ? `given for ${scopeWords(rule.why.scope)}` : `given for another ${ANY_SCOPE}`,
  );
  if (panel.inContext.length === 0 && panel.setAside.length === 0) add("No rule in context yet", "muted");
  if (panel.sameTextCount > 0) {
    // Their text is in context once, as the rule named: no figure of their own.
    add(`Same text, given once (${panel.sameTextCount})`, "heading");
    for (const rule of panel.sameText.slice(0, MAX_LISTED)) {
      add(`• ${clean(rule.name)}`, "rule", 2);
      add(`  ${sameTextWords(clean(rule.as))}`, "reason", 2);
    }
    const more = panel.sameTextCount - Math.min(panel.sameText.length, MAX_LISTED);
    if (more > 0) add(`  + ${more} more`, "muted", 2);
  }
  names("On request", panel.onRequest);
  names("Left out by the budget", panel.leftOut, panel.leftOutCount);
  names("Shadowed, still enforced", panel.held);
  for (const name of panel.weakened.slice(0, MAX_LISTED)) add(`⚠ weakened by the agent: ${clean(name)}`, "warning", 2);
  if (panel.warnings > 0) {
    add(`⚠ ${plural(panel.warnings, "warning")} about rule files`, "warning", 2);
    add(`  see ${CHECK_COMMAND}`, "muted", 2);
  }
  return lines;
}

function compactLines(panel: RulesPanel, width: number): PanelLine[] {
  const cost = costOf(panel);
  // `+`: some rules' cost is not known, the total is at least this.
  const total = cost ? ` · ≈${cost.tokens}${cost.known < cost.of ? "+" : ""}` : "";
  const lines: PanelLine[] = [{ text: cut(`Rules · ${panel.inContext.length}${total}`, width), tone: "title" }];
  for (const rule of panel.inContext.slice(0, MAX_LISTED))
    lines.push({ text: cut(`${clean(rule.name)} · ${rule.why ? shortWhy(rule.why) : "given"}`, width), tone: "rule" });
  const more = [
    panel.inContext.length > MAX_LISTED ? `+${panel.inContext.length - MAX_LISTED} more` : "",
    panel.setAside.length > 0 ? `${panel.setAside.length} set aside` : "",
    panel.sameTextCount > 0 ? `${panel.sameTextCount} same text` : "",
    panel.onRequest.length > 0 ? `${panel.onRequest.length} on request` : "",
    panel.leftOutCount > 0 ? `${panel.leftOutCount} left out` : "",
    panel.held.length > 0 ? `${panel.held.length} held` : "",
  ].filter((part) => part !== "");
  if (more.length > 0) lines.push({ text: cut(more.join(" · "), width), tone: "muted" });
  for (const name of panel.weakened.slice(0, MAX_LISTED))
    lines.push({ text: cut(`⚠ weakened: ${clean(name)}`, width), tone: "warning" });
  if (panel.warnings > 0) lines.push({ text: cut(`⚠ ${plural(panel.warnings, "warning")}`, width), tone: "warning" });
  return lines;
}

/**
 * What the rules in context cost: the total of the figures known, and for how
 * many of them. None when no rule's cost is known (marks of an earlier version):
 * the panel then gives no total rather than a false one.
 */
function costOf(panel: RulesPanel): { tokens: number; known: number; of: number } | undefined {
  const known = panel.inContext.filter((rule) => rule.tokens !== undefined).length;
  return known === 0 ? undefined : { tokens: panel.tokens, known, of: panel.inContext.length };
}

/**
 * A rule's name, wrapped, and its figure after it: on the name's last line when it fits there, else on a line below.
 */
function nameLines(rule: PanelRule, width: number): string[] {
  const lines = wrap(`• ${clean(rule.name)}`, width, 2);
  if (rule.tokens === undefined) return lines;
  const figure = tokensLabel(rule.tokens);
  const last = lines.pop() ?? "";
  const joined = `${last} · ${figure}`;
  return [...lines, ...([...joined].length <= width ? [joined] : [last, `  ${figure}`])];
}

/** Why a rule applies, as the panel words it: `always`, `file src/db/user.ts matched src/db/**`, `keyword "migration" · agent plan`. */
export function whyText(why: RuleWhy): string {
  const reason = reasonWords(why.reason);
  const scoped = why.scope && scopeWords(why.scope) !== "" ? `${reason} · ${scopeWords(why.scope)}` : reason;
  return why.from === undefined ? scoped : `${scoped} · ${clean(why.from)}`;
}

function reasonWords(reason: ActivationReason): string {
  switch (reason.kind) {
    case "always":
      return "always";
    case "mention":
      return `@${clean(reason.rule)} in the prompt`;
    case "rule-tool":
      return "read on request";
    case "on-request":
      return "on request, given whole";
    case "enforced":
      return clean(enforcedText(reason));
    case "conditions":
      return reason.met.map(metText).join(" and ");
  }
}

/** The kind of reason, in a word or two, for the compact layout. */
function shortWhy(why: RuleWhy): string {
  const { reason } = why;
  const kind =
    reason.kind === "conditions"
      ? reason.met.map((met) => met.kind).join("+")
      : reason.kind === "enforced"
        ? reason.mode === "block"
          ? "blocked"
          : "warned"
        : reason.kind === "rule-tool"
          ? "read"
          : reason.kind === "on-request"
            ? "on request"
            : reason.kind === "mention"
              ? "@mention"
              : "always";
  // Only the primary scope (the agent): the column has no room for more.
  const primary = PRIMARY && metOf(why.scope, PRIMARY.fact);
  const scoped = primary !== undefined ? `${kind} · ${clean(primary)}` : kind;
  // The compact layout names the tier only: a pack's label would not fit.
  return why.from?.startsWith("managed") ? `${scoped} · managed` : scoped;
}

/** What of a scope was met, by each narrowing kind: `agent plan, model anthropic/*`. */
function scopeWords(scope: ScopeMatch): string {
  return NARROWING.flatMap((kind) => {
    const met = metOf(scope, kind.fact);
    return met === undefined ? [] : [`${kind.words.noun} ${clean(met)}`];
  }).join(", ");
}

const metOf = (scope: ScopeMatch | undefined, fact: string): string | undefined =>
  (scope as Readonly<Record<string, string | undefined>> | undefined)?.[fact];

/** `agent or model`: what a rule set aside was given for, when its mark does not say. */
const ANY_SCOPE = orList(NARROWING.map((kind) => kind.words.noun));
const PRIMARY = NARROWING.find((kind) => kind.words.primary);

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** Names and paths come from files of untrusted repositories: control characters (a terminal escape) are shown, not obeyed. */
const clean = shownText;

/** A trigger that held, as its kind words it for the panel. */
function metText(met: ConditionMet): string {
  return kindOfMet(met.kind)?.words.panel(met, clean) ?? clean(met.kind);
}
