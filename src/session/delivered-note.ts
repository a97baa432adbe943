/**
 * The note of the rules a message delivered, with what the record needs to
 * name each one's reason: what the message opens (a window's first rules
 * open a new session's or a compaction's), the rules it activated, and the
 * rules the budget left out. The session keeps the names the budget left out
 * of its current window, so each is counted once a window, not at every
 * message that names it again, and a rule given once there was room is told
 * from one whose file changed. Pure.
 */
import type { ComposedMessage } from "../render/compose.js";
import type { SilentTrigger } from "./marker.js";
import type { Note, SessionState } from "./session.js";
import { names } from "./step-parts.js";

/**
 * `before`: the session before the message was composed (what its window held); `after`: the session the step leaves,
 * to which the window's left-out names are added.
 */
export function noteDelivered(
  before: SessionState,
  after: SessionState,
  composed: ComposedMessage,
  how: SilentTrigger | "message" | "tool-result",
  activated: readonly Note[],
  tool?: string,
): { state: SessionState; note: Note } {
  const window = before.window;
  const opens: SilentTrigger | undefined =
    how === "new-session" || how === "compaction"
      ? how
      : window.stage === "held"
        ? undefined
        : window.compactions > 0
          ? "compaction"
          : "new-session";
  const compactions = after.window.compactions;
  const earlier = after.leftOut?.window === compactions ? after.leftOut.names : new Set<string>();
  const leftOut = composed.leftOut.map((rule) => rule.name).filter((name) => !earlier.has(name));
  const note: Note = {
    kind: "delivered",
    rules: names(composed),
    how,
    ...(tool === undefined ? {} : { tool }),
    composed,
    ...(opens === undefined ? {} : { opens }),
    fresh: activated.flatMap((note) => (note.kind === "activated" ? [note.rule] : [])),
    leftOut,
    roomMade: names(composed).filter((name) => earlier.has(name)),
  };
  if (leftOut.length === 0) return { state: after, note };
  return { state: { ...after, leftOut: { window: compactions, names: new Set([...earlier, ...leftOut]) } }, note };
}
