/**
 * Reading an OpenCode 1 history back (src/hosts/opencode-1/history.ts): the
 * window the model sees is the one OpenCode 1.18 builds a request from (the
 * last compaction whose summary was written, the turns it kept, what came
 * after), so rules in it are found and never sent twice, and a compaction
 * still summarising or one that failed is told apart.
 */
import { describe, expect, test } from "vitest";
import { compactionUnderway, currentWindow, rulesIn, type HistoryMessage } from "../../src/hosts/opencode-1/history.js";

const marker = (name: string) => ({ "opencode-rulebook": { kind: "rules", rules: [name], delivery: `d-${name}` } });
const user = (id: string, extra: Partial<HistoryMessage["parts"][number]> = {}): HistoryMessage => ({
  info: { id, role: "user" },
  parts: [{ type: "text", ...extra }],
});
const rules = (id: string, name: string): HistoryMessage => ({
  info: { id, role: "user" },
  parts: [{ type: "text", metadata: marker(name) }],
});
const answer = (id: string): HistoryMessage => ({
  info: { id, role: "assistant", finish: "stop" },
  parts: [{ type: "text" }],
});
const compaction = (id: string, tailStart?: string): HistoryMessage => ({
  info: { id, role: "user" },
  parts: [{ type: "compaction", ...(tailStart ? { tail_start_id: tailStart } : {}) }],
});
const summary = (
  id: string,
  of: string,
  end: { finish?: string; error?: unknown } = { finish: "stop" },
): HistoryMessage => ({
  info: { id, role: "assistant", summary: true, parentID: of, ...end },
  parts: [{ type: "text" }],
});
const ids = (messages: readonly HistoryMessage[]) => messages.map((message) => message.info.id);

describe("the window the model sees", () => {
  test("no compaction: the whole history", () => {
    const history = [rules("r1", "style"), user("u1"), answer("a1")];
    expect(currentWindow(history)).toEqual({ messages: history, movedOn: false });
  });

  test("after a compaction: its message and summary, then what came after; earlier rules are gone", () => {
    const history = [rules("r1", "style"), user("u1"), answer("a1"), compaction("c1"), summary("s1", "c1"), user("u2")];
    const window = currentWindow(history);
    expect(ids(window.messages)).toEqual(["c1", "s1", "u2"]);
    expect(window.start).toBe("c1");
    expect(rulesIn(window.messages)).toEqual([]);
  });

  test("the turns a compaction kept (its tail) come after the summary, with any rules in them", () => {
    const history = [
      user("u1"),
      answer("a1"),
      rules("r1", "style"),
      user("u2"),
      answer("a2"),
      compaction("c1", "r1"),
      summary("s1", "c1"),
    ];
    const window = currentWindow(history);
    expect(ids(window.messages)).toEqual(["c1", "s1", "r1", "u2", "a2"]);
    expect(rulesIn(window.messages).map(({ marker }) => marker.rules)).toEqual([["style"]]);
    // Nothing after the summary yet: the model has not read past it.
    expect(window.movedOn).toBe(false);
  });

  test("a compaction still summarising, or one whose summary failed, has not moved the window", () => {
    const before = [rules("r1", "style"), user("u1"), answer("a1")];
    expect(ids(currentWindow([...before, compaction("c1")]).messages)).toEqual(["r1", "u1", "a1", "c1"]);
    expect(
      currentWindow([...before, compaction("c1"), summary("s1", "c1", { error: { name: "ContextOverflowError" } })])
        .start,
    ).toBeUndefined();
    expect(currentWindow([...before, compaction("c1"), summary("s1", "c1", {})]).start).toBeUndefined();
  });

  test("the latest finished compaction starts the window, not an earlier one", () => {
    const history = [
      compaction("c1"),
      summary("s1", "c1"),
      user("u1"),
      compaction("c2"),
      summary("s2", "c2"),
      user("u2"),
    ];
    expect(currentWindow(history).start).toBe("c2");
  });

  test("moved on: a message after the summary that is not the plugin's own rules", () => {
    const compacted = [user("u0"), compaction("c1"), summary("s1", "c1")];
    expect(currentWindow([...compacted, rules("r1", "style")]).movedOn).toBe(false);
    expect(currentWindow([...compacted, user("u1")]).movedOn).toBe(true);
    // A rules part hidden (a late copy) beside the user's words still makes it the user's message.
    expect(
      currentWindow([
        ...compacted,
        { info: { id: "u2", role: "user" }, parts: [{ type: "text", metadata: marker("style") }, { type: "text" }] },
      ]).movedOn,
    ).toBe(true);
  });
});

describe("a compaction under way", () => {
  test("named while its summary is missing or still being written; none once it finished or failed", () => {
    const before = [user("u1"), answer("a1")];
    expect(compactionUnderway(before)).toBeUndefined();
    expect(compactionUnderway([...before, compaction("c1")])).toBe("c1");
    expect(compactionUnderway([...before, compaction("c1"), summary("s1", "c1", {})])).toBe("c1");
    expect(compactionUnderway([...before, compaction("c1"), summary("s1", "c1")])).toBeUndefined();
    expect(
      compactionUnderway([...before, compaction("c1"), summary("s1", "c1", { error: { name: "Aborted" } })]),
    ).toBeUndefined();
  });
});
