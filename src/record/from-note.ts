/**
 * What the record keeps of a session's step: the lines each note of the
 * session model (`session/session.ts` Note) gives, with the session's agent
 * and model and each rule's size. Pure. A note carries names, patterns,
 * paths and line numbers only: the text of a file, a prompt, a command or
 * the line that broke a rule never reaches a note, so it never reaches the
 * record.
 */
import { conditionOf, NARROWING } from "../conditions/list.js";
import { ruleTokens } from "../render/tokens.js";
import type { Rule } from "../rule/rule.js";
import type { ActivationReason } from "../select/reasons.js";
import type { Note, RuleSet, SessionState } from "../session/session.js";
import { RECORD_VERSION, type RecordEvent } from "./event.js";

interface RecordContext {
  /** The project's root folder. */
  project: string;
  sessionID: string;
  /** The session after the step: its agent and model. */
  state: SessionState;
  /** The rules in effect: each rule named by a note is described from here. */
  rules: RuleSet;
  now: number;
}

type Delivered = Extract<Note, { kind: "delivered" }>;

export function recordedFor(note: Note, context: RecordContext): RecordEvent[] {
  const base = baseOf(context);
  const named = (name: string) => ruleFields(context.rules.byName.get(name), name);
  switch (note.kind) {
    case "delivered": {
      const { included, onRequest, leftOut } = note.composed;
      const newlyLeftOut = leftOut.filter((rule) => note.leftOut.includes(rule.name));
      return [
        ...included.map(({ rule, reason }) => ({
          ...base,
          kind: "delivered" as const,
          ...ruleFields(rule, rule.name),
          trigger: triggerOf(rule, reason, note),
        })),
        ...onRequest.map((rule) => ({ ...base, kind: "listed" as const, ...ruleFields(rule, rule.name) })),
        ...newlyLeftOut.map((rule) => ({ ...base, kind: "left-out" as const, ...ruleFields(rule, rule.name) })),
      ];
    }
    case "enforced":
      return [
        ...(note.given ?? []).map((rule) => ({
          ...base,
          kind: "delivered" as const,
          ...named(rule),
          trigger: note.mode === "block" ? "refusal" : "warning",
        })),
        ...enforcedLines(note, base, named),
      ];
    case "corrected":
    case "gave-up":
      return note.rules.map((rule) => ({
        ...base,
        kind: note.kind,
        ...named(rule),
        tool: note.tool,
        ...(note.file === undefined ? {} : { file: note.file }),
      }));
    case "rule-requested":
      // Asked for by name, and its text in the model's context from then on.
      return [
        { ...base, kind: "requested", ...named(note.rule) },
        { ...base, kind: "delivered", ...named(note.rule), trigger: "rule-tool" },
      ];
    case "tool-called":
      return [{ ...base, kind: "tool-call", tool: note.tool, call: note.call }];
    default:
      return [];
  }
}

/** A refusal's or warning's lines: one per rule and pattern broken, with the call's file, line and number. */
function enforcedLines(
  note: Extract<Note, { kind: "enforced" }>,
  base: Omit<RecordEvent, "kind">,
  named: (name: string) => Partial<RecordEvent>,
): RecordEvent[] {
  return note.broken.map(({ rule, pattern, file, lineNumber }) => ({
    ...base,
    kind: note.mode === "block" ? "refused" : "warned",
    ...named(rule),
    tool: note.tool,
    pattern,
    ...(file === undefined ? {} : { file }),
    ...(lineNumber === undefined ? {} : { line: lineNumber }),
    ...(note.call === undefined ? {} : { call: note.call }),
  }));
}

function baseOf({ project, sessionID, state, now }: RecordContext): Omit<RecordEvent, "kind"> {
  return {
    v: RECORD_VERSION,
    at: now,
    project,
    session: sessionID,
    ...(state.agent === undefined ? {} : { agent: state.agent }),
    ...(state.model === undefined ? {} : { model: `${state.model.providerID}/${state.model.modelID}` }),
  };
}

/** A rule as the record names it; a rule no longer loaded (deleted since) by its name alone. */
function ruleFields(
  rule: Rule | undefined,
  name: string,
): Pick<RecordEvent, "rule" | "scope" | "source" | "pack" | "tokens"> {
  if (!rule) return { rule: name };
  return {
    rule: rule.name,
    scope: rule.scope,
    source: rule.displayPath,
    ...(rule.pack ? { pack: rule.pack.label } : {}),
    tokens: ruleTokens(rule),
  };
}

/**
 * What brought a delivered rule: the session's start or a compaction, for the rules a window's first message gives
 * again; else the reason it applies, a scope that came to hold (`agent`, `model`, `branch`) for a rule that always
 * applies within it, or `changed` for one given again as its file changed.
 */
function triggerOf(rule: Rule, reason: ActivationReason, note: Delivered): string {
  if (note.opens && !note.fresh.includes(rule.name))
    return note.opens === "new-session" ? "session-start" : "compaction";
  switch (reason.kind) {
    case "always": {
      if (note.roomMade.includes(rule.name)) return "room";
      const scope = NARROWING.find((kind) => conditionOf(rule, kind) !== undefined);
      return scope ? scope.fact : "changed";
    }
    case "conditions":
      return reason.met[0].kind;
    case "mention":
      return "mention";
    case "rule-tool":
      return "rule-tool";
    case "on-request":
      return "on-request";
    case "enforced":
      return reason.mode === "block" ? "refusal" : "warning";
  }
}

/** The findings of `verify`, as the record keeps them: no session, the rule, its pattern, the file and line. */
export function verifyRecorded(
  findings: ReadonlyArray<{ rule: Rule; pattern: { written: string }; file: string; lineNumber: number }>,
  project: string,
  now: number,
): RecordEvent[] {
  return findings.map(({ rule, pattern, file, lineNumber }) => ({
    v: RECORD_VERSION,
    at: now,
    kind: "verify",
    project,
    ...ruleFields(rule, rule.name),
    pattern: pattern.written,
    file,
    line: lineNumber,
  }));
}
