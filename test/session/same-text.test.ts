/**
 * One text under two names (issue 44), through the session model
 * (src/session/step.ts): a Cursor rule and a Claude Code rule that rulesync
 * keeps in sync, each with its own conditions. The model gets the text once
 * a window, as the first rule by precedence that applies; the marker, and
 * so the Rules panel, names the other as the same text; the message's size
 * and the record count it once; a copy that comes to apply later in the
 * window is not given again; after a compaction the text comes once.
 */
import { describe, expect, test } from "vitest";
import { panelLines } from "../../src/panel/panel-lines.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";
import { recordedFor } from "../../src/record/from-note.js";
import { ruleTokens } from "../../src/render/tokens.js";
import type { Rule } from "../../src/rule/rule.js";
import type { Effect, Step } from "../../src/session/effects.js";
import type { RulesMarker } from "../../src/session/marker.js";
import type { Note, RuleSet, SessionState } from "../../src/session/session.js";
import { step } from "../../src/session/step.js";
import { parseRulesMessage } from "../support/rules-message.js";
import { makeRule } from "../support/rules.js";
import { at, finished, ruleSet, userTurn } from "./step-fixtures.js";

const BODY = "Prefer small functions.\nName things for what they are.";
/** Cursor's copy, first by precedence; `always` or by its globs. */
const cursor = (always: boolean): Rule =>
  makeRule({
    name: "style",
    source: "cursor",
    path: "/p/.cursor/rules/style.mdc",
    displayPath: ".cursor/rules/style.mdc",
    content: BODY,
    ...(always ? { alwaysApply: true } : { globs: ["src/**/*.ts"] }),
  });
/** Claude Code's copy: always on. */
const claude = makeRule({
  name: "code-style",
  source: "claude",
  path: "/p/.claude/rules/code-style.md",
  displayPath: ".claude/rules/code-style.md",
  content: BODY,
});
const other = makeRule({ name: "testing", content: "Test every branch." });

const answerOf = ({ effects }: Step) => effects.find((effect) => effect.type === "answer");
const notesOf = ({ effects }: Step): Note[] =>
  effects.flatMap((effect) => (effect.type === "note" ? [effect.note] : []));
/** How many times the message holds the shared text. */
const copiesIn = (text: string) => text.split(BODY).length - 1;

/** A user's turn in `state`: the step, and the rules message its answer carries (if any). */
function turn(state: SessionState, rules: RuleSet, prompt = "hi") {
  const next = step(state, userTurn(prompt, { rules }));
  const answer = answerOf(next);
  return { next, rules: answer?.type === "answer" ? answer.rules : undefined };
}

describe("two rules with one text, both active", () => {
  const rules = ruleSet(cursor(true), claude, other);
  const first = turn(at("empty"), rules);

  test("the message holds the text once, as the first rule; the marker names the other as its same text", () => {
    const answer = first.rules;
    expect(answer && copiesIn(answer.text)).toBe(1);
    expect(parseRulesMessage(answer?.text ?? "").map((rule) => rule.name)).toEqual(["style", "testing"]);
    expect(answer?.marker).toMatchObject({
      rules: ["style", "testing"],
      sameText: ["code-style"],
      sameTextAs: ["style"],
    });
  });

  test("its size is counted once: the message is the one without the copy, the marker's cost is the first's", () => {
    const alone = turn(at("empty"), ruleSet(cursor(true), other)).rules;
    expect(first.rules?.text).toBe(alone?.text);
    expect(first.rules?.marker.tokens).toEqual([ruleTokens(cursor(true)), ruleTokens(other)]);
  });

  test("the Rules panel shows the copy as the same text as the rule given, its cost not added", () => {
    const panel = rulesPanel([first.rules?.marker as RulesMarker]);
    expect(panel?.tokens).toBe(ruleTokens(cursor(true)) + ruleTokens(other));
    const lines = panelLines(panel, 37).map(({ text }) => text);
    expect(lines).toEqual(
      expect.arrayContaining(["Same text, given once (1)", "• code-style", "  same text as style"]),
    );
    expect(panelLines(panel, 20)[0]?.text).toBe(`Rules · 2 · ≈${panel?.tokens}`);
    expect(panelLines(panel, 20).at(-1)?.text).toBe("1 same text");
  });

  test("the window holds the rule given, not the copy; the record counts one delivery", () => {
    expect([...first.next.state.window.delivered.keys()]).toEqual(["style", "testing"]);
    const delivered = notesOf(first.next).find((note) => note.kind === "delivered");
    const lines = recordedFor(delivered as Note, {
      project: "/p",
      sessionID: "s1",
      state: first.next.state,
      rules: () => rules,
      now: 0,
    });
    expect(lines.map((line) => `${line.kind} ${line.rule}`)).toEqual(["delivered style", "delivered testing"]);
  });
});

describe("the first copy by precedence not active at first", () => {
  const rules = ruleSet(cursor(false), claude);
  const first = turn(at("empty"), rules);

  test("the copy that applies gives the text", () => {
    expect(first.rules?.marker.rules).toEqual(["code-style"]);
    expect(first.rules?.marker.sameText).toBeUndefined();
    expect(copiesIn(first.rules?.text ?? "")).toBe(1);
  });

  test("later in the window the first copy applies too: it is not given again, and stays active", () => {
    const read = step(first.next.state, finished("read", ["src/a.ts"], { rules }));
    expect(answerOf(read)).toEqual({ type: "answer" });
    expect(notesOf(read)).toEqual([
      {
        kind: "activated",
        rule: "style",
        reason: { kind: "conditions", met: [{ kind: "file", file: "src/a.ts", glob: "src/**/*.ts" }] },
      },
    ]);
    // Nor with the user's next message: the window holds its text.
    expect(turn(read.state, rules, "more work").rules).toBeUndefined();
  });

  test("after a compaction the text comes once, as the first copy by precedence", () => {
    const read = step(first.next.state, finished("read", ["src/a.ts"], { rules })).state;
    const restarted = step(read, { type: "window-restarted", now: 100, rules }).state;
    // The compaction's silent delivery: the new window read (empty of rules), then the rules sent.
    const due = step(restarted, { type: "silent-due", trigger: "compaction", rules, freshId: "d2" });
    const [readWindow] = due.effects;
    if (readWindow?.type !== "read-window") throw new Error("no read");
    const sent = step(due.state, {
      type: "window-seen",
      purpose: readWindow.purpose,
      view: { rules: [], choice: {}, movedOn: false },
      rules,
      now: 150,
      freshId: "d2",
    });
    const send = sent.effects.find((effect: Effect) => effect.type === "send-rules");
    if (send?.type !== "send-rules") throw new Error("no send");
    expect(copiesIn(send.composed.text)).toBe(1);
    expect(send.marker).toMatchObject({ rules: ["style"], sameText: ["code-style"], sameTextAs: ["style"] });
  });
});

describe("the rule carrying the text no longer does", () => {
  test("paused for another agent: the copy's own text goes", () => {
    const plan = makeRule({ name: "style", agents: ["plan"], content: BODY });
    const rules = ruleSet(plan, claude);
    const asPlan = turn(at("empty", { agent: "plan" }), rules);
    expect(asPlan.rules?.marker).toMatchObject({ rules: ["style"], sameText: ["code-style"] });
    const asBuild = turn({ ...asPlan.next.state, agent: "build" }, rules);
    expect(asBuild.rules?.marker).toMatchObject({ rules: ["code-style"], paused: ["style"] });
    expect(asBuild.rules?.marker.sameText).toBeUndefined();
    const panel = rulesPanel([asPlan.rules?.marker, asBuild.rules?.marker] as RulesMarker[]);
    expect(panel?.sameText).toEqual([]);
    expect(panel?.inContext.map((rule) => rule.name)).toEqual(["code-style"]);
  });

  test("its file changed to another text: the copy's own text goes with the change", () => {
    const rules = ruleSet(cursor(true), claude);
    const held = turn(at("empty"), rules).next.state;
    const edited = makeRule({ ...cursor(true), content: "Prefer pure functions." });
    const after = turn(held, ruleSet(edited, claude));
    expect(after.rules?.marker.rules).toEqual(["style", "code-style"]);
    expect(copiesIn(after.rules?.text ?? "")).toBe(1);
  });
});
