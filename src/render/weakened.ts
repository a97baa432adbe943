/**
 * What the model reads, after a call that weakened a rule that forbids: the
 * call ran (rule files stay writable), and the user is told. Pure.
 */
import type { Weakening, WeakenedRule } from "../enforce/weakened.js";
import { codeSpan, shownLine } from "./refusal.js";

const WEAKENED_HEADER =
  "opencode-rulebook: this call weakens a rule that holds in this project. It ran (rule files stay writable), and the user is told: " +
  "the log and the Rules panel show it as weakened by the agent. If the user did not ask for this, put the rule back as it was.";

export function weakenedText(weakened: readonly WeakenedRule[]): string {
  return `${WEAKENED_HEADER}\n${weakened.map(weakenedLine).join("\n")}`;
}

/** `- Rule "no-force-push" (.opencode/rules/no-force-push.md): no longer forbids `--force`; now only warns`. */
export function weakenedLine({ name, displayPath, ways }: WeakenedRule): string {
  return `- Rule ${JSON.stringify(name)} (${shownLine(displayPath)}): ${ways.map(wayText).join("; ")}`;
}

function wayText(way: Weakening): string {
  switch (way.kind) {
    case "switched-off":
      return "switched off (the file no longer reads as a rule)";
    case "patterns-removed":
      return `no longer forbids ${way.patterns.map((pattern) => codeSpan(shownLine(pattern))).join(", ")}`;
    case "now-warns":
      return "now only warns instead of refusing";
    case "scope-changed":
      return `now holds elsewhere (its ${way.keys.join(", ")} changed)`;
    case "shadowed":
      return `shadowed by ${shownLine(way.by)}, so what it forbids no longer holds`;
  }
}
