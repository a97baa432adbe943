/**
 * A user's turn: what its message names (attachments, paths in its words,
 * `@rule` mentions), a wait for the silent delivery under way, a read of the
 * window when the turn cannot know what it holds, then the rules the message
 * carries and the date it takes. Pure.
 */
import { mentionedRuleNames } from "../select/mentions.js";
import { withFiles, withMentions } from "./activation.js";
import { callsNoted } from "./call-count.js";
import { composeFor } from "./compose-for.js";
import { turnEnded } from "./corrections.js";
import type { Step } from "./effects.js";
import type { SessionEvent } from "./events.js";
import { markerFor } from "./marker.js";
import { normalisePath, pathsNamedInPrompt } from "./paths.js";
import type { Note, ReadPurpose, RuleSet, SessionState, Turn } from "./session.js";
import { noteDelivered } from "./delivered-note.js";
import { after, asking, markerContext, markersIn, moved, noted, served } from "./step-parts.js";
import { holdsRules, mustReadWindow, userMessageDate } from "./window-queries.js";

type Event<T extends SessionEvent["type"]> = Extract<SessionEvent, { type: T }>;

/** A user's message about to reach the model: it waits for the silent delivery under way, if one is. */
export function userTurn(before: SessionState, event: Event<"user-turn">): Step {
  const { prompt, place, rules } = event;
  // A new turn: the last one's refusals still awaiting their correction were given up; its calls are counted.
  const ended = turnEnded(before);
  const { state, notes: counted } = callsNoted(ended.state);
  const gaveUp = [...ended.notes, ...counted];
  if (!served(state, rules)) return after(noted(gaveUp), asking(state, { type: "answer" }));
  const chosen = { ...state, agent: event.agent ?? state.agent, model: event.model ?? state.model };
  const notes: Note[] = [...gaveUp];
  const files = event.attachments.flatMap((raw) => {
    // One odd attachment (a file URL that does not decode) is that attachment's problem only.
    try {
      return [normalisePath(raw, place.directory, place.projectRoot)];
    } catch (error) {
      notes.push({ kind: "unreadable-part", error: error instanceof Error ? error.message : String(error) });
      return [];
    }
  });
  const turn: Turn = { prompt, files, named: pathsNamedInPrompt(prompt, rules.names, place), created: event.created };
  if (chosen.silent)
    return after(noted(notes), asking(chosen, { type: "await-delivery", waiter: { kind: "turn", turn } }));
  return after(noted(notes), turnMayGoOn(chosen, turn, rules));
}

/** The silent delivery is done, or was waited for long enough. */
export function turnMayGoOn(state: SessionState, turn: Turn, rules: RuleSet): Step {
  // A compaction under way, or done with its word still to come: the history says whether this message opens its
  // window.
  if (state.window.compacting)
    return asking(state, {
      type: "read-window",
      scope: "since-compaction",
      purpose: { kind: "join-compaction", turn },
    });
  return turnKnowsWindow(state, turn, rules);
}

/** What the window holds, read for a turn: whether it opens a compaction's window, and which rules it holds. */
export function turnSawWindow(
  state: SessionState,
  purpose: Extract<ReadPurpose, { kind: "join-compaction" | "turn" }>,
  seen: Event<"window-seen">,
): Step {
  const { view, rules } = seen;
  if (purpose.kind === "join-compaction") {
    // The history shows the compaction's window (written, or still summarising, so that this message will follow the
    // summary): this message is its first.
    const start = view?.compactionUnderway ?? view?.windowStart;
    if (view && start === state.window.windowStart)
      return turnKnowsWindow(moved(state, { type: "compaction-abandoned" }), purpose.turn, rules);
    let next = moved(state, { type: "compacted", windowStart: start, announced: false, at: seen.now });
    // The recent turns a compaction keeps may hold rules already.
    if (view && !view.compactionUnderway)
      next = moved(next, { type: "window-read", found: markersIn(view), settles: false, current: rules.byName });
    return turnKnowsWindow(next, purpose.turn, rules);
  }
  // Unreadable history: deliver anyway; a rule read twice costs less than a rule missing.
  const notes: Note[] = view ? [] : [{ kind: "history-unreadable", error: seen.error ?? "no answer" }];
  const next = moved(state, {
    type: "window-read",
    found: view ? markersIn(view) : [],
    settles: true,
    current: rules.byName,
  });
  return after(noted(notes), turnReads(next, purpose.turn, rules));
}

/** The paths the turn's words name that exist join the working set; the message composes. */
export function pathsFound(state: SessionState, { turn, existing, rules }: Event<"paths-found">): Step {
  return turnComposes({ ...state, activation: withFiles(state.activation, existing) }, turn, rules);
}

/**
 * The turn knows what the window holds, or reads it first (a fork, a session from before a restart, a prompt whose fate
 * is unknown).
 */
function turnKnowsWindow(state: SessionState, turn: Turn, rules: RuleSet): Step {
  if (mustReadWindow(state.window))
    return asking(state, { type: "read-window", scope: "current", purpose: { kind: "turn", turn } });
  return turnReads(state, turn, rules);
}

/**
 * Takes in what the message brings: its attachments and `@rule` mentions now, the paths its words name once checked.
 */
function turnReads(state: SessionState, turn: Turn, rules: RuleSet): Step {
  // Messages are ordered by creation time: the user's must come after the rules.
  const dated: Turn = { ...turn, date: userMessageDate(state.window, turn.created) };
  const withAttached = withFiles(state.activation, turn.files);
  const activation = withMentions(withAttached, mentionedRuleNames(turn.prompt, rules.names));
  const next = { ...state, activation };
  // Paths already in the working set need no check.
  const unchecked = turn.named.filter(({ path }) => !activation.files.has(path));
  if (unchecked.length > 0) return asking(next, { type: "check-paths", turn: { ...dated, named: unchecked } });
  return turnComposes(next, dated, rules);
}

function turnComposes(state: SessionState, turn: Turn, rules: RuleSet): Step {
  const first = !holdsRules(state.window);
  const { state: next, composed, notes } = composeFor(state, rules, turn.prompt);
  // This message holds every rule the session needs: a rules prompt still on its way would only repeat them.
  const held = moved(next, { type: "user-message", composed, current: rules.byName });
  if (!composed) return { state: held, effects: [...noted(notes), { type: "answer", created: turn.date }] };
  const answer = {
    text: composed.text,
    marker: markerFor(composed, first ? "first-message" : "message", markerContext(rules)),
  };
  const delivered = noteDelivered(state, held, composed, "message", notes);
  return {
    state: delivered.state,
    effects: [...noted([...notes, delivered.note]), { type: "answer", created: turn.date, rules: answer }],
  };
}
