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
  /** The rules in effect: each rule a note names only is described from here (asked only then). */
  rules: () => RuleSet;
  now: number;
}

type Delivered = Extract<Note, { kind: "delivered" }>;
/** What a line may say besides its kind, its session and its rule. */
type LineFields = Pick<RecordEvent, "trigger" | "tool" | "pattern" | "file" | "line" | "call">;

export function recordedFor(note: Note, context: RecordContext): RecordEvent[] {
  if (note.kind === "tool-calls") {
    const event = sessionLine(context, "tool-calls");
    event.call = note.calls;
    return [event];
  }
  // One line, its fields set one by one: this runs at every tool call, and object spreads cost a microsecond each.
  const line = (kind: RecordEvent["kind"], rule: Rule | string, fields?: LineFields): RecordEvent => {
    const event = sessionLine(context, kind);
    describeRule(event, typeof rule === "string" ? (context.rules().byName.get(rule) ?? rule) : rule);
    if (fields) withFields(event, fields);
    return event;
  };
  switch (note.kind) {
    case "delivered": {
      const { included, onRequest, leftOut } = note.composed;
      // A message may name thousands of rules: each list is looked up by name, not searched.
      const given = { opens: note.opens, fresh: new Set(note.fresh), roomMade: new Set(note.roomMade) };
      const lines = included.map(({ rule, reason }) =>
        line("delivered", rule, { trigger: triggerOf(rule, reason, given) }),
      );
      for (const rule of onRequest) lines.push(line("listed", rule));
      const newlyLeftOut = new Set(note.leftOut);
      for (const rule of leftOut) if (newlyLeftOut.has(rule.name)) lines.push(line("left-out", rule));
      return lines;
    }
    case "enforced": {
      const trigger = note.mode === "block" ? "refusal" : "warning";
      const lines = (note.given ?? []).map((rule) => line("delivered", rule, { trigger }));
      for (const { rule, pattern, file, lineNumber } of note.broken)
        lines.push(
          line(note.mode === "block" ? "refused" : "warned", rule, {
            tool: note.tool,
            pattern,
            file,
            line: lineNumber,
            call: note.call,
          }),
        );
      return lines;
    }
    case "corrected":
    case "gave-up":
      return note.rules.map((rule) => line(note.kind, rule, { tool: note.tool, file: note.file }));
    case "rule-requested":
      // Asked for by name, and its text in the model's context from then on.
      return [line("requested", note.rule), line("delivered", note.rule, { trigger: "rule-tool" })];
    default:
      return [];
  }
}

/** The fields after the rule's, in the order a line is written; an absent one is left out. */
function withFields(event: RecordEvent, fields: LineFields): void {
  if (fields.trigger !== undefined) event.trigger = fields.trigger;
  if (fields.tool !== undefined) event.tool = fields.tool;
  if (fields.pattern !== undefined) event.pattern = fields.pattern;
  if (fields.file !== undefined) event.file = fields.file;
  if (fields.line !== undefined) event.line = fields.line;
  if (fields.call !== undefined) event.call = fields.call;
}

/** A line's start: the format's version, when, and whose session, as which agent and model. */
function sessionLine({ project, sessionID, state, now }: RecordContext, kind: RecordEvent["kind"]): RecordEvent {
  const event: RecordEvent = { v: RECORD_VERSION, at: now, kind, project, session: sessionID };
  if (state.agent !== undefined) event.agent = state.agent;
  if (state.model !== undefined) event.model = `${state.model.providerID}/${state.model.modelID}`;
  return event;
}

/** The rule as the record names it; one no longer loaded (deleted since) by its name alone. */
function describeRule(event: RecordEvent, rule: Rule | string): void {
  if (typeof rule === "string") {
    event.rule = rule;
    return;
  }
  event.rule = rule.name;
  event.scope = rule.scope;
  event.source = rule.displayPath;
  if (rule.pack) event.pack = rule.pack.label;
  event.tokens = ruleTokens(rule);
}

/**
 * What brought a delivered rule: the session's start or a compaction, for the rules a window's first message gives
 * again; else the reason it applies, a scope that came to hold (`agent`, `model`, `branch`) for a rule that always
 * applies within it, or `changed` for one given again as its file changed.
 */
function triggerOf(
  rule: Rule,
  reason: ActivationReason,
  message: { opens?: Delivered["opens"]; fresh: ReadonlySet<string>; roomMade: ReadonlySet<string> },
): string {
  if (message.opens && !message.fresh.has(rule.name))
    return message.opens === "new-session" ? "session-start" : "compaction";
  switch (reason.kind) {
    case "always": {
      if (message.roomMade.has(rule.name)) return "room";
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
  return findings.map(({ rule, pattern, file, lineNumber }) => {
    const event: RecordEvent = { v: RECORD_VERSION, at: now, kind: "verify", project };
    describeRule(event, rule);
    event.pattern = pattern.written;
    event.file = file;
    event.line = lineNumber;
    return event;
  });
}
