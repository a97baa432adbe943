/**
 * Whether the model fixed what a refusal told it: a refused call waits for
 * the next call of the same tool on the same file (for a command, the next
 * call of the same tool). When that call goes through (it is not refused),
 * the refusal was corrected; when the turn ends first, the model gave up.
 * Pure.
 */
import type { AwaitedCorrection, Note, SessionState } from "./session.js";

/** Refusals awaited at once, per session: a model that never corrects must not grow the session without bound. */
export const MAX_AWAITED = 32;

/** A refused call: each rule it broke waits, under its tool and file, for a call that goes through. */
export function awaitCorrection(
  state: SessionState,
  tool: string,
  broken: ReadonlyArray<{ rule: string; file?: string }>,
): SessionState {
  let awaited = [...(state.refused ?? [])];
  for (const { rule, file } of broken) {
    const at = awaited.findIndex((one) => one.tool === tool && one.file === file);
    const earlier = awaited[at];
    if (earlier) {
      if (!earlier.rules.includes(rule)) awaited[at] = { ...earlier, rules: [...earlier.rules, rule] };
    } else awaited.push(file === undefined ? { tool, rules: [rule] } : { tool, file, rules: [rule] });
  }
  if (awaited.length > MAX_AWAITED) awaited = awaited.slice(-MAX_AWAITED);
  return { ...state, refused: awaited };
}

/**
 * A call that went through: the refusals of its tool on one of its files (or of its tool, for a command) are corrected.
 */
export function wentThrough(
  state: SessionState,
  tool: string,
  files: readonly string[],
): { state: SessionState; notes: Note[] } {
  const awaited = state.refused;
  if (!awaited || awaited.length === 0) return { state, notes: [] };
  const fixes = (one: AwaitedCorrection) => one.tool === tool && (one.file === undefined || files.includes(one.file));
  const corrected = awaited.filter(fixes);
  if (corrected.length === 0) return { state, notes: [] };
  return {
    state: withAwaited(
      state,
      awaited.filter((one) => !fixes(one)),
    ),
    notes: corrected.map(noteAs("corrected")),
  };
}

/** The turn ended (the user's next message, the session gone): the refusals still awaited were given up. */
export function turnEnded(state: SessionState): { state: SessionState; notes: Note[] } {
  const awaited = state.refused;
  if (!awaited || awaited.length === 0) return { state, notes: [] };
  return { state: withAwaited(state, []), notes: awaited.map(noteAs("gave-up")) };
}

const noteAs =
  (kind: "corrected" | "gave-up") =>
  ({ tool, file, rules }: AwaitedCorrection): Note =>
    file === undefined ? { kind, tool, rules } : { kind, tool, file, rules };

function withAwaited(state: SessionState, awaited: readonly AwaitedCorrection[]): SessionState {
  if (awaited.length > 0) return { ...state, refused: awaited };
  const { refused: _none, ...rest } = state;
  return rest;
}
