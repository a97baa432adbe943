/**
 * A tool call's steps. Before it runs: the files it names count (in a
 * session that gets rules), and what it would add is checked against the
 * rules that forbid (`call-check.ts`), the rules it breaks deciding whether
 * it is refused or runs with a warning (`enforced.ts`). After it ran: the
 * files it named and listed and the text it brought in activate rules, which
 * go with its result. The call is placed once, before it runs, and kept for
 * its result. Pure.
 */
import { anyForbidden } from "../enforce/violations.js";
import { withContent, withFiles } from "./activation.js";
import { checkedCall, forbiddingUnder, readsFor } from "./call-check.js";
import { callCounted } from "./call-count.js";
import { composeFor } from "./compose-for.js";
import { awaitCorrection, wentThrough } from "./corrections.js";
import { callChecked, takeWarning, withWarning } from "./enforced.js";
import type { Effect, Step } from "./effects.js";
import type { CallUnderCheck, CheckRead, FinishedCall, SessionEvent } from "./events.js";
import { markerFor } from "./marker.js";
import { listedInProject, normalisePath } from "./paths.js";
import { keepCall, placeCall, takeCall, textsBroughtIn } from "./placed-call.js";
import type { Note, RuleSet, SessionState } from "./session.js";
import { noteDelivered } from "./delivered-note.js";
import { after, asking, markerContext, moved, noted, only, served } from "./step-parts.js";
import { holdsRules, rulesOwed } from "./window-queries.js";

type Event<T extends SessionEvent["type"]> = Extract<SessionEvent, { type: T }>;

/** A call about to run: what it names counts, before it exists; what it would add is checked when some rule forbids. */
export function callProposed(state: SessionState, { call, place, rules }: Event<"call-proposed">): Step {
  const placed = placeCall(call, place);
  const { state: counted, number, notes: countNotes } = callCounted(state);
  // Intent: a file about to be written counts before it exists.
  const next = served(state, rules)
    ? keepCall({ ...counted, activation: withFiles(state.activation, placed.files) }, placed, rules)
    : counted;
  const calledNote = noted(countNotes);
  // Checked whether or not the session gets rules: a subagent's calls are held to the rules like its parent's.
  const forbidding = forbiddingUnder(rules);
  if (placed.changes.length === 0 || !anyForbidden(forbidding.rules)) {
    const through = wentThrough(next, placed.tool, placed.files);
    return { state: through.state, effects: [...calledNote, ...noted(through.notes), { type: "answer" }] };
  }
  const option = rules.enforce === "warn" ? "warn" : "block";
  return after(
    calledNote,
    asking(next, { type: "find-rule-files", check: { call: placed, number, forbidding, option } }),
  );
}

/** The rule files the call writes are known: the files the check needs are read. */
export function ruleFilesFound(state: SessionState, event: Event<"rule-files-found">): Step {
  const check: CallUnderCheck = { ...event.check, deadline: event.deadline, ruleFiles: event.ruleFiles };
  const reads = readsFor(check);
  return reads.length === 0 ? matched(state, check, []) : asking(state, { type: "read-files", check, reads });
}

export const filesRead = (state: SessionState, { check, read }: Event<"files-read">): Step =>
  matched(state, check, read);

/** What the call adds is known: it is matched against the rules that forbid, as the session works. */
function matched(state: SessionState, check: CallUnderCheck, read: readonly CheckRead[]): Step {
  const { changes, ruleWrites, unchecked } = checkedCall(check, read);
  const { tool, callID } = check.call;
  const notes = unchecked.map((change): Note => ({ kind: "unchecked-change", tool, change }));
  const matching: Effect = {
    type: "match-call",
    tool,
    ...(callID === undefined ? {} : { callID }),
    counted: { number: check.number, files: check.call.files },
    changes,
    ruleWrites,
    forbidding: check.forbidding,
    as: { agent: state.agent, model: state.model },
    option: check.option,
    deadline: check.deadline,
  };
  return { state, effects: [...noted(notes), matching] };
}

/** The check is done: refused, let run with a warning, or let run (`enforced.ts`); what it could not finish is said. */
export function checked(state: SessionState, event: Event<"call-checked">): Step {
  const { tool, unreached, weakeningUnknown } = event;
  const notes: Note[] = [];
  if (unreached) notes.push({ kind: "check-incomplete", tool, unreached });
  if (weakeningUnknown !== undefined) notes.push({ kind: "weakening-unknown", error: weakeningUnknown });
  const verdict = callChecked(state, event);
  const refused = verdict.effects.some((effect) => effect.type === "answer" && effect.refusal);
  // A refused call never runs: no result will come for it; it waits for its correction.
  if (refused) {
    const broken = event.violations.map(({ rule, file }) => ({
      rule: rule.name,
      ...(file === undefined ? {} : { file }),
    }));
    const taken = takeCall(verdict.state, event.callID, tool).state;
    return after(noted(notes), { ...verdict, state: awaitCorrection(taken, tool, broken) });
  }
  const through = wentThrough(verdict.state, tool, event.counted?.files ?? []);
  return after(noted([...notes, ...through.notes]), { ...verdict, state: through.state });
}

/** A call ran: in a session that gets rules, or whose call broke a `warn` rule, its result may carry rules. */
export function toolFinished(state: SessionState, event: Event<"tool-finished">): Step {
  const { tool, callID, place, rules } = event;
  const warned = state.warned?.has(callID ?? tool) === true;
  const { state: taken, call: kept } = takeCall(state, callID, tool);
  if (!served(state, rules) && !warned) return asking(taken, { type: "answer" });
  const call = kept ?? placeCall({ tool, ...(callID === undefined ? {} : { callID }), ...event.readCall() }, place);
  // A listing outside the project says nothing of the session's work.
  const listed = listedInProject(event.listed ?? [], place.projectRoot);
  const files = [...call.files, ...listed.map((line) => normalisePath(line, place.directory, place.projectRoot))];
  const finished: FinishedCall = { tool, ...(callID === undefined ? {} : { callID }), files };
  const texts = rules.contentRules ? textsBroughtIn(call, event.fileText) : [];
  if (texts.length > 0)
    return asking(taken, { type: "scan-contents", finished, texts, known: taken.activation.contentMatches });
  return resultCarries(taken, finished, [], rules);
}

/** The text the call brought in was matched against content conditions; a text not all looked at in time is said. */
export function contentsScanned(
  state: SessionState,
  { finished, hits, complete, rules }: Event<"contents-scanned">,
): Step {
  const notes = noted(complete ? [] : [{ kind: "content-unscanned", tool: finished.tool }]);
  return after(notes, resultCarries(state, finished, hits, rules));
}

/** A file touched in no session in particular counts for the last session working, while it gets rules. */
export function fileTouched(state: SessionState, { path, place, rules }: Event<"file-touched">): Step {
  if (!served(state, rules)) return only(state);
  const file = normalisePath(path, place.directory, place.projectRoot);
  return only({ ...state, activation: withFiles(state.activation, [file]) });
}

/** The rules a finished call's files and text activate, and a `warn` rule it broke after them. */
function resultCarries(
  state: SessionState,
  finished: FinishedCall,
  contents: Event<"contents-scanned">["hits"],
  rules: RuleSet,
): Step {
  const { state: taken, warning } = takeWarning(state, finished.callID ?? finished.tool);
  const result = activated(taken, finished, contents, rules);
  if (!warning) return result;
  // A `warn` rule the call broke goes after the rules the result carries.
  const effects = result.effects.map((effect) =>
    effect.type === "answer" ? { ...effect, rules: withWarning(effect.rules, warning) } : effect,
  );
  return { state: result.state, effects };
}

/** In a window that holds the rules (or owes them), the result carries the rules its files and text activate. */
function activated(
  state: SessionState,
  { tool, files }: FinishedCall,
  contents: Event<"contents-scanned">["hits"],
  rules: RuleSet,
): Step {
  const touched = { ...state, activation: withContent(withFiles(state.activation, files), contents) };
  // A new session's first delivery will carry them; rules owed since a compaction go now.
  if (!holdsRules(touched.window) && !rulesOwed(touched.window)) return asking(touched, { type: "answer" });
  const { state: next, composed, notes } = composeFor(touched, rules);
  if (!composed || composed.included.length === 0)
    return { state: next, effects: [...noted(notes), { type: "answer" }] };
  // The model reads the tool result in its very next request: no extra turn, no silent prompt mid-turn.
  const held = moved(next, { type: "tool-result", composed, current: rules.byName });
  const answer = { text: composed.text, marker: markerFor(composed, tool, markerContext(rules)) };
  const delivered = noteDelivered(touched, held, composed, "tool-result", notes, tool);
  return { state: delivered.state, effects: [...noted([...notes, delivered.note]), { type: "answer", rules: answer }] };
}
