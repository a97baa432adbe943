/**
 * How a session moves: `step(state, event)` gives the next state and the
 * effects the engine carries out (`session.ts` names them). Pure. The window
 * model's own transitions are `advanceWindow` (`window.ts`); this adds the
 * session's other facts and decides what each moment asks for.
 */
import { mentionedRuleNames } from "../select/mentions.js";
import { reloaded, withActivated, withContent, withFiles, withMentions } from "./activation.js";
import { composeFor } from "./compose-for.js";
import { callChecked, takeWarning, withWarning } from "./enforced.js";
import { markerFor, type SilentTrigger } from "./marker.js";
import type {
  Effect,
  Note,
  ReadPurpose,
  RuleSet,
  SessionEvent,
  SessionState,
  Step,
  Turn,
  WindowView,
} from "./session.js";
import { advanceWindow } from "./window.js";
import type { WindowEvent } from "./window-state.js";
import {
  compactionAlreadyApplied,
  holdsRules,
  isSuperseded,
  mustReadWindow,
  pendingDeliveries,
  rulesOwed,
  userMessageDate,
} from "./window-queries.js";

export function step(state: SessionState, event: SessionEvent): Step {
  switch (event.type) {
    case "seen": {
      const next = moved(state, { type: "created", ignored: event.ignored, hasHistory: event.hasHistory });
      if (next.window.stage === "ignored") return only(next);
      const chosen = { ...next, agent: next.agent ?? event.agent, model: next.model ?? event.model };
      // A session with a history is read back at its first message; nothing is delivered before.
      return event.hasHistory
        ? only(chosen)
        : then(chosen, { type: "deliver-silently", trigger: "new-session", grace: true });
    }
    case "compaction-began":
      // Known now, while the host's word that it finished may come only after the user's next message went to the model.
      return only(state.window.stage === "ignored" ? state : moved(state, { type: "compaction-started" }));
    case "window-restarted": {
      const chosen = { ...state, agent: event.agent, model: event.model };
      return then(
        moved(chosen, { type: "compacted", windowStart: event.windowStart, announced: false, at: event.now }),
        {
          type: "deliver-silently",
          trigger: "compaction",
          thenWentOn: true,
        },
      );
    }
    case "went-on":
      return only(moved(state, { type: "overtaken" }));
    case "compaction-ended":
      return then(state, {
        type: "read-window",
        scope: "since-compaction",
        purpose: { kind: "compaction-ended", window: state.window.window },
      });
    case "silent-due":
      return silentDue(state, event);
    case "user-turn":
      return then(
        { ...state, agent: event.agent ?? state.agent, model: event.model ?? state.model },
        { type: "await-delivery", turn: event.turn },
      );
    case "turn-may-go-on":
      // A compaction under way, or done with its word still to come: the history says whether this message opens its window.
      if (state.window.compacting)
        return then(state, {
          type: "read-window",
          scope: "since-compaction",
          purpose: { kind: "join-compaction", turn: event.turn },
        });
      return turnKnowsWindow(state, event.turn, event.rules);
    case "window-seen":
      return windowSeen(state, event.purpose, event);
    case "paths-found":
      return turnComposes(
        { ...state, activation: withFiles(state.activation, event.existing) },
        event.turn,
        event.rules,
      );
    case "files-touched":
      return only({ ...state, activation: withFiles(state.activation, event.files) });
    case "tool-finished": {
      const { state: taken, warning } = takeWarning(state, event.callID ?? event.tool);
      const result = toolFinished(taken, event);
      if (!warning) return result;
      // A `warn` rule the call broke goes after the rules the result carries.
      const effects = result.effects.map((effect) =>
        effect.type === "answer" ? { ...effect, rules: withWarning(effect.rules, warning) } : effect,
      );
      return { state: result.state, effects };
    }
    case "call-checked":
      return callChecked(state, event);
    case "rule-requested": {
      const read = moved(state, { type: "rule-read", rule: event.rule });
      return only({
        ...read,
        activation: withActivated(read.activation, [{ name: event.rule.name, reason: { kind: "rule-tool" } }]),
      });
    }
    case "own-rules-stored":
      // The rules already went another way (or it would land after what the model read): this late copy stays out of the model's sight.
      if (isSuperseded(state.window, event.delivery)) return then(state, { type: "answer", hide: true });
      // The host is storing it now: what it carries is in the window from this moment, whether or not its answer reaches the plugin in time.
      return then(
        moved(state, {
          type: "prompt-seen",
          delivery: event.delivery,
          created: event.created,
          current: event.rules.byName,
        }),
        { type: "answer", hide: false },
      );
    case "rules-reloaded":
      return only(
        moved(
          { ...state, activation: reloaded(state.activation, event.removed) },
          { type: "reloaded", current: event.rules.byName },
        ),
      );
    case "rules-sent": {
      // What the stored attempt carried, not what would be composed now (a rule may have changed since).
      const sent = state.window.attempts.get(event.delivery)?.composed ?? event.composed;
      const { delivery, created, composed, window } = event;
      const next = moved(state, {
        type: "prompt-stored",
        delivery,
        created,
        composed,
        window,
        current: event.rules.byName,
      });
      const landed = holdsRules(next.window) && next.window.rulesCreated === event.created;
      return landed
        ? then(next, { type: "note", note: { kind: "delivered", rules: names(sent), how: event.trigger } })
        : only(next);
    }
    case "rules-refused":
      return only(moved(state, { type: "prompt-refused", delivery: event.delivery }));
    default:
      return only(moved(state, event));
  }
}

function toolFinished(state: SessionState, event: Extract<SessionEvent, { type: "tool-finished" }>): Step {
  const touched = { ...state, activation: withContent(withFiles(state.activation, event.files), event.contents ?? []) };
  // A new session's first delivery will carry them; rules owed since a compaction go now.
  if (!holdsRules(touched.window) && !rulesOwed(touched.window)) return then(touched, { type: "answer" });
  const { state: next, composed, notes } = composeFor(touched, event.rules);
  if (!composed || composed.included.length === 0)
    return { state: next, effects: [...noted(notes), { type: "answer" }] };
  // The model reads the tool result in its very next request: no extra turn, no silent prompt mid-turn.
  const held = moved(next, { type: "tool-result", composed, current: event.rules.byName });
  const rules = { text: composed.text, marker: markerFor(composed, event.tool, markerContext(event.rules)) };
  const delivered: Note = { kind: "delivered", rules: names(composed), how: "tool-result", tool: event.tool };
  return { state: held, effects: [...noted([...notes, delivered]), { type: "answer", rules }] };
}

/** A silent prompt is due: unless owed to the next message, read the window first when it may already hold rules. */
function silentDue(
  state: SessionState,
  { trigger, rules, freshId }: Extract<SessionEvent, { type: "silent-due" }>,
): Step {
  // Owed to the next message: a prompt now would land after what the model read.
  if (rulesOwed(state.window)) return only(state);
  const compacted = trigger === "compaction";
  const pending = [...pendingDeliveries(state.window)];
  const needsHistory = compacted || (!state.agent && state.window.stage === "unread") || pending.length > 0;
  if (needsHistory)
    return then(state, {
      type: "read-window",
      scope: compacted ? "since-compaction" : "current",
      purpose: { kind: "silent", trigger, pending },
    });
  return silentSend(state, trigger, pending, { rules, now: 0, freshId });
}

function windowSeen(
  state: SessionState,
  purpose: ReadPurpose,
  seen: Extract<SessionEvent, { type: "window-seen" }>,
): Step {
  const { view, rules } = seen;
  switch (purpose.kind) {
    case "silent":
      return silentSend(state, purpose.trigger, purpose.pending, seen);
    case "compaction-ended":
      // A window restarted while the history was read: what it showed is older than the window; read again (nothing delivered twice).
      if (purpose.window !== state.window.window) return step(state, { type: "compaction-ended" });
      // Its window started already: when the host let the model go on, or at a user's message that came before this word.
      if (compactionAlreadyApplied(state.window, view?.windowStart))
        return only(moved(state, { type: "compaction-announced" }));
      return then(moved(state, { type: "compacted", windowStart: view?.windowStart, announced: true, at: seen.now }), {
        type: "deliver-silently",
        trigger: "compaction",
      });
    case "join-compaction": {
      // The history shows the compaction's window (written, or still summarising, so that this message will follow the summary): this message is its first.
      const start = view?.compactionUnderway ?? view?.windowStart;
      if (view && start === state.window.windowStart)
        return turnKnowsWindow(moved(state, { type: "compaction-abandoned" }), purpose.turn, rules);
      let next = moved(state, { type: "compacted", windowStart: start, announced: false, at: seen.now });
      // The recent turns a compaction keeps may hold rules already.
      if (view && !view.compactionUnderway)
        next = moved(next, { type: "window-read", found: markersIn(view), settles: false, current: rules.byName });
      return turnKnowsWindow(next, purpose.turn, rules);
    }
    case "turn": {
      // Unreadable history: deliver anyway; a rule read twice costs less than a rule missing.
      const notes: Note[] = view ? [] : [{ kind: "history-unreadable", error: seen.error ?? "no answer" }];
      const next = moved(state, {
        type: "window-read",
        found: view ? markersIn(view) : [],
        settles: true,
        current: rules.byName,
      });
      const after = turnReads(next, purpose.turn, rules);
      return { state: after.state, effects: [...noted(notes), ...after.effects] };
    }
  }
}

/** `seen`: the window as read, if it was; `freshId` the delivery id a new attempt takes; `now` the date of an attempt found stored without one. */
function silentSend(
  before: SessionState,
  trigger: SilentTrigger,
  pending: readonly string[],
  {
    view,
    error,
    rules,
    now,
    freshId: id,
  }: { view?: WindowView; error?: string; rules: RuleSet; now: number; freshId: string },
): Step {
  // An earlier attempt that timed out may have been stored after all: never send the rules twice, and never blind.
  if (pending.length > 0 && !view) return then(before, { type: "fail", reason: "history-unreadable-with-pending" });
  let state = before;
  // A prompt without the session's agent would switch it to the default agent.
  if (view && !state.agent) state = { ...state, agent: view.choice.agent, model: view.choice.model };
  const compacted = trigger === "compaction";
  // The new window may already hold rules: a delivery that was on its way when the compaction came.
  if (compacted && view)
    state = moved(state, { type: "window-read", found: markersIn(view), settles: false, current: rules.byName });
  const window = state.window.window;
  const composition = composeFor(state, rules);
  const notes = noted(composition.notes);
  state = composition.state;
  const composed = composition.composed;
  if (!composed) return { state: moved(state, { type: "nothing-to-send" }), effects: notes };
  // The host is already working in the new window (a replayed prompt): the next message the plugin reaches carries the rules.
  if (compacted && view?.movedOn)
    return {
      state: moved(state, { type: "overtaken" }),
      effects: [...notes, { type: "note", note: { kind: "went-on-before-rules" } }],
    };
  const earlier = view?.rules.find(({ marker }) => marker.delivery !== undefined && pending.includes(marker.delivery));
  if (earlier?.marker.delivery !== undefined) {
    const stored = step(state, {
      type: "rules-sent",
      delivery: earlier.marker.delivery,
      created: earlier.created ?? now,
      composed,
      window,
      trigger,
      rules,
    });
    return { state: stored.state, effects: [...notes, ...stored.effects] };
  }
  const marker = markerFor(composed, trigger, { delivery: id, ...markerContext(rules) });
  const sending: Effect = {
    type: "send-rules",
    delivery: id,
    composed,
    marker,
    trigger,
    window,
    agent: state.agent,
    model: state.model,
  };
  // Sent blind, as a user's turn would be: a rule read twice costs less than a rule missing.
  const blind = noted(error === undefined ? [] : [{ kind: "history-unreadable", error, silent: true }]);
  return {
    state: moved(state, { type: "prompt-sent", delivery: id, composed }),
    effects: [...notes, ...blind, sending],
  };
}

/** The turn knows what the window holds, or reads it first (a fork, a session from before a restart, a prompt whose fate is unknown). */
function turnKnowsWindow(state: SessionState, turn: Turn, rules: RuleSet): Step {
  if (mustReadWindow(state.window))
    return then(state, { type: "read-window", scope: "current", purpose: { kind: "turn", turn } });
  return turnReads(state, turn, rules);
}

/** Takes in what the message brings: its attachments and `@rule` mentions now, the paths its words name once checked. */
function turnReads(state: SessionState, turn: Turn, rules: RuleSet): Step {
  // Messages are ordered by creation time: the user's must come after the rules.
  const dated: Turn = { ...turn, date: userMessageDate(state.window, turn.created) };
  const withAttached = withFiles(state.activation, turn.files);
  const activation = withMentions(withAttached, mentionedRuleNames(turn.prompt, rules.names));
  const next = { ...state, activation };
  // Paths already in the working set need no check.
  const unchecked = turn.named.filter(({ path }) => !activation.files.has(path));
  if (unchecked.length > 0) return then(next, { type: "check-paths", turn: { ...dated, named: unchecked } });
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
  const delivered: Note = { kind: "delivered", rules: names(composed), how: "message" };
  return {
    state: held,
    effects: [...noted([...notes, delivered]), { type: "answer", created: turn.date, rules: answer }],
  };
}

/** What a composed message's marker says of its rule set: its warnings, and its shadowed rules whose forbids hold. */
const markerContext = (rules: RuleSet) => ({
  warnings: rules.warnings,
  held: [...(rules.forbidding?.shadowedBy?.keys() ?? [])].map((rule) => rule.name),
});

const moved = (state: SessionState, event: WindowEvent): SessionState => {
  const window = advanceWindow(state.window, event);
  return window === state.window ? state : { ...state, window };
};
const only = (state: SessionState): Step => ({ state, effects: [] });
const then = (state: SessionState, effect: Effect): Step => ({ state, effects: [effect] });
const noted = (notes: readonly Note[]): Effect[] => notes.map((note) => ({ type: "note", note }));
const names = (composed: { included: ReadonlyArray<{ rule: { name: string } }> }) =>
  composed.included.map(({ rule }) => rule.name);
const markersIn = (view: WindowView) => view.rules.map(({ marker }) => marker);
