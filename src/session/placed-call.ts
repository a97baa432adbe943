/**
 * A tool call as the session takes it: its arguments read once by the host's
 * adapter (`ToolCall`), its paths placed once here, and kept by the session
 * from before the call runs until its result comes, so that the result reads
 * neither again. Pure.
 */
import type { PlacedCall, PlacedChange, PlacedPath, ToolCall } from "../enforce/proposed.js";
import { type PathBase, placedPath } from "./paths.js";
import type { RuleSet, SessionState } from "./session.js";

/** Calls kept for their result, per session: a call whose result never comes (it failed) must not stay for ever. */
export const MAX_KEPT_CALLS = 32;

type Base = Pick<PathBase, "directory" | "projectRoot">;

/** The call with each path it names normalised once (a write's path is among its files too). */
export function placeCall(call: ToolCall, base: Base): PlacedCall {
  const known = new Map<string, PlacedPath>();
  const place = (raw: string): PlacedPath => {
    const placed = known.get(raw) ?? placedPath(raw, base);
    known.set(raw, placed);
    return placed;
  };
  const changes = call.changes.map((change): PlacedChange => {
    if (change.kind === "command") return change;
    const file = place(change.path);
    if (change.kind === "write") return { kind: "write", written: change.path, file, content: change.content };
    const { readFrom, replacements, added } = change;
    return {
      kind: "edit",
      written: change.path,
      file,
      ...(readFrom === undefined ? {} : { readFrom: place(readFrom) }),
      replacements,
      added,
    };
  });
  return {
    tool: call.tool,
    ...(call.callID === undefined ? {} : { callID: call.callID }),
    files: call.files.map((raw) => place(raw).path),
    changes,
  };
}

/**
 * The text a call brought in, by file, for rules with content conditions: a
 * read's file text (`fileText`, of its first file), a write's content, the
 * lines an edit or a patch adds.
 */
export function textsBroughtIn(call: PlacedCall, fileText?: () => string): Array<{ file: string; text: string }> {
  if (fileText) {
    const [file] = call.files;
    return file === undefined ? [] : [{ file, text: fileText() }];
  }
  return call.changes.flatMap((change) => {
    if (change.kind === "write") return [{ file: change.file.path, text: change.content }];
    if (change.kind === "edit")
      return [{ file: change.file.path, text: change.added.map(({ text }) => text).join("\n") }];
    return [];
  });
}

/**
 * The session keeping `call` for its result (by the host's id: without one a result cannot be told from another); its
 * changes only while some rule looks at content.
 */
export function keepCall(state: SessionState, call: PlacedCall, rules: RuleSet): SessionState {
  if (call.callID === undefined) return state;
  const calls = new Map(state.calls ?? []);
  calls.set(call.callID, rules.contentRules ? call : { ...call, changes: [] });
  // Oldest first out: a Map iterates in insertion order.
  while (calls.size > MAX_KEPT_CALLS) calls.delete(calls.keys().next().value as string);
  return { ...state, calls };
}

/** The call kept for this result, taken out of the session; none kept for another tool of the same id. */
export function takeCall(
  state: SessionState,
  callID: string | undefined,
  tool: string,
): { state: SessionState; call?: PlacedCall } {
  const call = callID === undefined ? undefined : state.calls?.get(callID);
  if (call === undefined || callID === undefined) return { state };
  const calls = new Map(state.calls);
  calls.delete(callID);
  const next = { ...state, calls: calls.size === 0 ? undefined : calls };
  return call.tool === tool ? { state: next, call } : { state: next };
}
