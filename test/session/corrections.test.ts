/**
 * Whether the model fixed what a refusal told it: the decision between
 * "corrected" and "given up", on the session model alone.
 */
import { describe, expect, test } from "vitest";
import { awaitCorrection, MAX_AWAITED, turnEnded, wentThrough } from "../../src/session/corrections.js";
import { NEW_SESSION, type SessionState } from "../../src/session/session.js";

const refused = (state: SessionState, tool: string, ...broken: Array<{ rule: string; file?: string }>) =>
  awaitCorrection(state, tool, broken);

describe("corrected or given up", () => {
  test("the next call of the same tool on the same file corrects every rule its refusals named, once", () => {
    let state = refused(NEW_SESSION, "write", { rule: "logging", file: "src/a.ts" });
    state = refused(state, "write", { rule: "no-any", file: "src/a.ts" }, { rule: "logging", file: "src/a.ts" });
    const through = wentThrough(state, "write", ["src/a.ts"]);
    expect(through.notes).toEqual([
      { kind: "corrected", tool: "write", file: "src/a.ts", rules: ["logging", "no-any"] },
    ]);
    expect(through.state.refused).toBeUndefined();
    expect(wentThrough(through.state, "write", ["src/a.ts"]).notes).toEqual([]);
  });

  test("another tool, or the same tool on another file, corrects nothing", () => {
    const state = refused(NEW_SESSION, "write", { rule: "logging", file: "src/a.ts" });
    expect(wentThrough(state, "edit", ["src/a.ts"]).notes).toEqual([]);
    expect(wentThrough(state, "write", ["src/b.ts"]).notes).toEqual([]);
    expect(wentThrough(state, "write", []).notes).toEqual([]);
  });

  test("a refused command is corrected by the next call of its tool, whatever it names", () => {
    const state = refused(NEW_SESSION, "bash", { rule: "no-force-push" });
    expect(wentThrough(state, "bash", []).notes).toEqual([
      { kind: "corrected", tool: "bash", rules: ["no-force-push"] },
    ]);
  });

  test("one call that writes two refused files corrects both; a refusal on a third file still waits", () => {
    let state = refused(NEW_SESSION, "apply_patch", { rule: "r1", file: "a.ts" }, { rule: "r2", file: "b.ts" });
    state = refused(state, "apply_patch", { rule: "r3", file: "c.ts" });
    const through = wentThrough(state, "apply_patch", ["a.ts", "b.ts"]);
    expect(through.notes.map((note) => note.kind === "corrected" && note.rules)).toEqual([["r1"], ["r2"]]);
    expect(through.state.refused).toEqual([{ tool: "apply_patch", file: "c.ts", rules: ["r3"] }]);
  });

  test("at the turn's end every refusal still awaited is given up, and the session awaits none after", () => {
    let state = refused(NEW_SESSION, "write", { rule: "logging", file: "src/a.ts" });
    state = refused(state, "bash", { rule: "no-force-push" });
    const ended = turnEnded(state);
    expect(ended.notes).toEqual([
      { kind: "gave-up", tool: "write", file: "src/a.ts", rules: ["logging"] },
      { kind: "gave-up", tool: "bash", rules: ["no-force-push"] },
    ]);
    expect(ended.state.refused).toBeUndefined();
    expect(turnEnded(ended.state).notes).toEqual([]);
  });

  test("a model that never corrects keeps at most MAX_AWAITED refusals: the oldest go", () => {
    let state = NEW_SESSION;
    for (let i = 0; i < MAX_AWAITED + 5; i++) state = refused(state, "write", { rule: "r", file: `f${i}.ts` });
    expect(state.refused).toHaveLength(MAX_AWAITED);
    expect(state.refused?.[0]?.file).toBe("f5.ts");
  });
});
