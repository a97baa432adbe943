/**
 * What the Rules panel shows for a session, worked out from the plugin's own
 * marks in the session's current window (oldest first): the rules the model
 * holds, why and what each costs, the rules given for another agent or model
 * and set aside now, the rules not given as their text is another's, the
 * on-request rules it may read, the rules the budget left out, and how many
 * warnings the rule files gave. Pure: the same history gives the
 * same panel, in any process, after a restart, in a fork.
 */
import { isComposed, type RulesMarker, type RuleWhy } from "../session/marker.js";

export interface PanelRule {
  name: string;
  /** Why it applies (absent for marks written before the panel existed). */
  why?: RuleWhy;
  /** What it costs in the window, estimated (`ruleTokens`); absent when its mark did not say (an earlier version's). */
  tokens?: number;
}

export interface RulesPanel {
  /** In the model's context window and in effect, in the order they were given. */
  inContext: PanelRule[];
  /** What the rules in context cost, estimated: the sum of the figures known (a rule without one counts 0). */
  tokens: number;
  /** In the window, but the model was told they do not apply to the agent or model at work now. */
  setAside: PanelRule[];
  /** Listed for the model to read with the `rule` tool, not read yet. */
  onRequest: string[];
  /** Active, but left out of the window for its size; readable with the `rule` tool. */
  leftOut: string[];
  /** How many rules were left out, when more than `leftOut` names. */
  leftOutCount: number;
  /** Active, but not given: their text is in context as another rule's (`as`), given once. */
  sameText: PanelSameText[];
  /** How many rules were not given for their text, when more than `sameText` names. */
  sameTextCount: number;
  /** Warnings about the rule files, as of the latest message. */
  warnings: number;
  /** Rules a less trusted rule of their name shadows whose forbids still hold, as of the latest message. */
  held: string[];
  /** Rules that forbid which a call of the agent weakened in this window. */
  weakened: string[];
}

/** A rule whose text is in context as another's. */
interface PanelSameText {
  name: string;
  /** The rule whose text it is, given in the window. */
  as: string;
}

/** The panel for a window's marks; undefined when the plugin put nothing in it (no rule exists, or none was given yet). */
export function rulesPanel(markers: readonly RulesMarker[]): RulesPanel | undefined {
  if (markers.length === 0) return undefined;
  const given = new Map<string, PanelRule>();
  const paused = new Set<string>();
  const offered = new Set<string>();
  const leftOut = new Set<string>();
  let leftOutMore = 0;
  let sameText = new Map<string, string>();
  let sameTextMore = 0;
  let warnings = 0;
  let held: string[] = [];
  const weakened = new Set<string>();
  for (const marker of markers) {
    for (const name of marker.weakened ?? []) weakened.add(name);
    marker.rules.forEach((name, i) => {
      const why = marker.why?.[i];
      const tokens = marker.tokens?.[i];
      // Given again, its latest mark says what it costs: its text may have changed; a mark without a figure knows none.
      given.set(name, { name, ...(why === undefined ? {} : { why }), ...(tokens === undefined ? {} : { tokens }) });
      paused.delete(name);
      leftOut.delete(name);
      sameText.delete(name);
    });
    for (const name of marker.offered ?? []) offered.add(name);
    for (const name of marker.paused ?? []) paused.add(name);
    for (const name of marker.resumed ?? []) paused.delete(name);
    // A composed message names every active rule it leaves out, and the warnings of its rule set: the latest one holds.
    if (isComposed(marker)) {
      leftOut.clear();
      for (const name of marker.leftOut ?? []) if (!given.has(name)) leftOut.add(name);
      leftOutMore = Math.max(0, (marker.leftOutCount ?? 0) - (marker.leftOut?.length ?? 0));
      // Copies are never held: each composed message names them all again, as the window is then.
      sameText = new Map();
      marker.sameText?.forEach((name, i) => {
        if (!given.has(name)) sameText.set(name, marker.sameTextAs?.[i] ?? "");
      });
      sameTextMore = Math.max(0, (marker.sameTextCount ?? 0) - (marker.sameText?.length ?? 0));
      warnings = marker.warnings ?? 0;
      held = marker.held ?? [];
    }
    for (const name of marker.removed ?? []) {
      given.delete(name);
      paused.delete(name);
      offered.delete(name);
      leftOut.delete(name);
      sameText.delete(name);
    }
  }
  const rules = [...given.values()];
  const inContext = rules.filter((rule) => !paused.has(rule.name));
  return {
    inContext,
    tokens: inContext.reduce((sum, rule) => sum + (rule.tokens ?? 0), 0),
    setAside: rules.filter((rule) => paused.has(rule.name)),
    onRequest: [...offered].filter((name) => !given.has(name)),
    leftOut: [...leftOut],
    leftOutCount: leftOut.size + leftOutMore,
    sameText: [...sameText].map(([name, as]) => ({ name, as })),
    sameTextCount: sameText.size + sameTextMore,
    warnings,
    held,
    weakened: [...weakened],
  };
}
