/**
 * What the step tables share (steps*.test.ts): rules, sessions at each stage, events, and effects as a table names
 * them.
 */
import type { Rule } from "../../src/rule/rule.js";
import type { Effect } from "../../src/session/effects.js";
import type { SessionEvent } from "../../src/session/events.js";
import { NEW_SESSION, type RuleSet, type SessionState, type Turn, type WindowView } from "../../src/session/session.js";
import type { Stage } from "../../src/session/window-state.js";
import { makeRule } from "../support/rules.js";

export const style = makeRule({ name: "style", content: "Small functions." });
export const migrations = makeRule({ name: "migrations", keywords: ["migration"], content: "Follow the checklist." });
export const typescript = makeRule({ name: "typescript", globs: ["src/**/*.ts"], content: "Strict types." });
export const ruleSet = (...list: Rule[]): RuleSet => ({
  list,
  byName: new Map(list.map((rule) => [rule.name, rule])),
  names: new Set(list.map((rule) => rule.name)),
  warnings: 0,
});
export const rules = ruleSet(style, migrations, typescript);
/** Where paths are resolved from: a project at /p. */
export const place = { directory: "/p", projectRoot: "/p", home: "/home/u" };
export const at = (stage: Stage, extra: Partial<SessionState> = {}): SessionState => ({
  ...NEW_SESSION,
  window: { ...NEW_SESSION.window, stage },
  ...extra,
});
/** A window that holds the always-on rule already. */
export const holding = at("held", {
  window: { ...NEW_SESSION.window, stage: "held", delivered: new Map([["style", style]]) },
});
export const turn = (prompt: string, extra: Partial<Turn> = {}): Turn => ({
  prompt,
  files: [],
  named: [],
  created: 100,
  ...extra,
});
/** A user's message, as the engine hands it over. */
export const userTurn = (prompt: string, extra: Partial<Extract<SessionEvent, { type: "user-turn" }>> = {}) =>
  ({ type: "user-turn", prompt, attachments: [], created: 100, place, rules, ...extra }) as const;
/** A finished tool call the session kept nothing of: its arguments name `files`. */
export const finished = (
  tool: string,
  files: readonly string[],
  extra: Partial<Extract<SessionEvent, { type: "tool-finished" }>> = {},
): SessionEvent => ({ type: "tool-finished", tool, readCall: () => ({ files, changes: [] }), place, rules, ...extra });
export const view = (extra: Partial<WindowView> = {}): WindowView => ({
  rules: [],
  choice: {},
  movedOn: false,
  ...extra,
});
export const seen = (
  purpose: Extract<SessionEvent, { type: "window-seen" }>["purpose"],
  found?: WindowView,
): SessionEvent => ({
  type: "window-seen",
  purpose,
  ...(found ? { view: found } : { error: "unreadable" }),
  rules,
  now: 50,
  freshId: "d-new",
});
/** An effect as the table names it: its type, and what tells it apart. */
export const named = (effect: Effect): string => {
  switch (effect.type) {
    case "read-window":
      return `read-window ${effect.scope} for ${effect.purpose.kind}`;
    case "deliver-silently":
      return `deliver-silently ${effect.trigger}${effect.grace ? " after grace" : ""}${effect.thenWentOn ? " then went-on" : ""}`;
    case "start-delivery":
      return `start-delivery ${effect.trigger}`;
    case "try-delivery":
      return `try-delivery ${effect.trigger} after ${effect.afterMs} ms`;
    case "await-delivery":
      return `await-delivery for ${effect.waiter.kind}`;
    case "send-rules":
      return `send-rules ${effect.trigger} [${effect.marker.rules.join(",")}] as ${effect.delivery}`;
    case "answer":
      return `answer${effect.rules ? ` [${effect.rules.marker.rules.join(",")}] ${effect.rules.marker.trigger}` : ""}${effect.hide === undefined ? "" : ` hide=${effect.hide}`}${effect.created === undefined ? "" : ` dated ${effect.created}`}${effect.refusal ? " refused" : ""}`;
    case "note":
      return `note ${effect.note.kind}`;
    case "check-paths":
      return `check-paths ${effect.turn.named.map(({ path }) => path).join(",")}`;
    case "find-rule-files":
      return `find-rule-files ${effect.check.call.tool}`;
    case "read-files":
      return `read-files ${effect.reads.map(({ path }) => path).join(",")}`;
    case "match-call":
      return `match-call ${effect.changes.map((change) => (change.kind === "file" ? change.file : change.command)).join(",")}`;
    case "scan-contents":
      return `scan-contents ${effect.texts.map(({ file }) => file).join(",")}`;
  }
};
export const work = (effects: Effect[]) => effects.filter((effect) => effect.type !== "note").map(named);
