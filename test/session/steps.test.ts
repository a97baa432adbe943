/**
 * The session model's steps (src/session/step.ts), without a host or an
 * engine: for each moment of a session, the state before, the event, the
 * stage after, and the effects it asks for (read the window, check paths,
 * send rules, answer the host), then the conversations those effects make.
 * The silent delivery's retries: steps-delivery.test.ts; a tool call's check
 * and result: steps-calls.test.ts.
 */
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/session/events.js";
import { NEW_SESSION, type SessionState } from "../../src/session/session.js";
import { DEFAULT_RETRY } from "../../src/session/silent-delivery.js";
import { step } from "../../src/session/step.js";
import type { Stage } from "../../src/session/window-state.js";
import {
  at,
  finished,
  holding,
  migrations,
  named,
  place,
  ruleSet,
  rules,
  seen,
  style,
  turn,
  userTurn,
  view,
  work,
} from "./step-fixtures.js";

const delivering: Partial<SessionState> = { silent: { trigger: "new-session", attempt: 1, retry: DEFAULT_RETRY } };

describe("each moment: stage after, and the effects asked for", () => {
  const table: Array<[string, SessionState, SessionEvent, Stage, string[]]> = [
    [
      "a new session: the silent delivery, after the grace period",
      at("unread"),
      { type: "seen", ignored: false, hasHistory: false, rules },
      "empty",
      ["deliver-silently new-session after grace"],
    ],
    [
      "a session with a history: nothing until its first message",
      at("unread"),
      { type: "seen", ignored: false, hasHistory: true, rules },
      "unread",
      [],
    ],
    [
      "a subagent's session, subagents off: left alone",
      at("unread"),
      { type: "seen", ignored: true, hasHistory: false, rules },
      "ignored",
      [],
    ],
    [
      "a session seen where there are no rules: nothing",
      at("unread"),
      { type: "seen", ignored: false, hasHistory: false, rules: ruleSet() },
      "unread",
      [],
    ],
    [
      "a silent delivery to an empty window sends its rules",
      at("empty"),
      { type: "silent-due", trigger: "new-session", rules, freshId: "d1" },
      "empty",
      ["send-rules new-session [style] as d1"],
    ],
    [
      "a session seen without its agent reads its history first",
      at("unread"),
      { type: "silent-due", trigger: "new-session", rules, freshId: "d1" },
      "unread",
      ["read-window current for silent"],
    ],
    [
      "a compaction's delivery reads the new window first",
      at("empty", { agent: "build" }),
      { type: "silent-due", trigger: "compaction", rules, freshId: "d1" },
      "empty",
      ["read-window since-compaction for silent"],
    ],
    [
      "rules owed to the next message: no silent prompt",
      at("owed"),
      { type: "silent-due", trigger: "compaction", rules, freshId: "d1" },
      "owed",
      [],
    ],
    [
      "the window restarted: its rules go again, then the host goes on",
      at("held"),
      { type: "window-restarted", agent: "build", now: 100, rules },
      "empty",
      ["deliver-silently compaction then went-on"],
    ],
    [
      "a subagent's session left alone: a restarted window asks for nothing",
      at("ignored"),
      { type: "window-restarted", agent: "build", now: 100, rules },
      "ignored",
      [],
    ],
    ["the host went on before the rules landed: owed", at("empty"), { type: "went-on" }, "owed", []],
    [
      "the host's word of a compaction: read what its window holds",
      at("held"),
      { type: "compaction-ended", rules },
      "held",
      ["read-window since-compaction for compaction-ended"],
    ],
    [
      "a user's turn waits for the delivery under way",
      at("empty", delivering),
      userTurn("hi"),
      "empty",
      ["await-delivery for turn"],
    ],
    [
      "a user's turn with no delivery under way goes on at once",
      at("empty"),
      userTurn("hi"),
      "held",
      ["answer [style] first-message"],
    ],
    [
      "a user's turn in a session that gets no rules: answered with nothing",
      at("ignored"),
      userTurn("a migration"),
      "ignored",
      ["answer"],
    ],
    [
      "…then, with a compaction under way, reads whether this message opens its window",
      at("held", { window: { ...NEW_SESSION.window, stage: "held", compacting: true } }),
      { type: "turn-may-go-on", turn: turn("hi"), rules },
      "held",
      ["read-window since-compaction for join-compaction"],
    ],
    [
      "…a session not read yet reads its window",
      at("unread"),
      { type: "turn-may-go-on", turn: turn("hi"), rules },
      "unread",
      ["read-window current for turn"],
    ],
    [
      "…paths its words name are checked",
      at("held"),
      {
        type: "turn-may-go-on",
        turn: turn("see src/a.ts", { named: [{ path: "src/a.ts", absolute: "/p/src/a.ts" }] }),
        rules,
      },
      "held",
      ["check-paths src/a.ts"],
    ],
    [
      "…and the message carries the rules it activates",
      holding,
      { type: "turn-may-go-on", turn: turn("a migration"), rules },
      "held",
      ["answer [migrations] message"],
    ],
    [
      "…a first message carries every rule the session needs",
      at("empty"),
      { type: "turn-may-go-on", turn: turn("hi"), rules },
      "held",
      ["answer [style] first-message"],
    ],
    [
      "a checked path activates its glob rule",
      holding,
      { type: "paths-found", turn: turn("see it"), existing: ["src/a.ts"], rules },
      "held",
      ["answer [typescript] message"],
    ],
    [
      "a tool result carries the rules its files activate",
      holding,
      finished("read", ["src/a.ts"]),
      "held",
      ["answer [typescript] read"],
    ],
    [
      "a tool result before the first delivery carries nothing",
      at("empty"),
      finished("read", ["src/a.ts"]),
      "empty",
      ["answer"],
    ],
    [
      "a tool result pays rules owed since a compaction",
      at("owed"),
      finished("read", []),
      "held",
      ["answer [style] read"],
    ],
    [
      "the plugin's own prompt stored: counted at once",
      at("empty"),
      { type: "own-rules-stored", delivery: "d9", created: 7, rules },
      "empty",
      ["answer hide=false"],
    ],
    [
      "a file touched joins the working set, nothing asked",
      at("held"),
      { type: "file-touched", path: "/p/src/a.ts", place, rules },
      "held",
      [],
    ],
    ["the rule tool read a rule: held, active", at("held"), { type: "rule-requested", rule: migrations }, "held", []],
  ];
  test.each(table)("%s", (_name, state, event, after, effects) => {
    const next = step(state, event);
    expect(next.state.window.stage).toBe(after);
    expect(work(next.effects)).toEqual(effects);
  });
});

describe("conversations", () => {
  test("a silent prompt: sent, then stored; the window holds it, and the log is told", () => {
    const sending = step(at("empty", { agent: "build" }), {
      type: "silent-due",
      trigger: "new-session",
      rules,
      freshId: "d1",
    });
    const send = sending.effects.find((effect) => effect.type === "send-rules");
    expect(send).toMatchObject({ agent: "build", marker: { delivery: "d1", trigger: "new-session" } });
    if (send?.type !== "send-rules") throw new Error("no send");
    const stored = step(sending.state, {
      type: "rules-sent",
      delivery: "d1",
      created: 10,
      composed: send.composed,
      compactions: send.compactions,
      trigger: "new-session",
      rules,
    });
    expect(stored.state.window).toMatchObject({ stage: "held", rulesCreated: 10 });
    expect(stored.effects.map(named)).toEqual(["note delivered"]);
  });

  test("the history shows the earlier prompt stored after all: it is the delivery, none is sent", () => {
    const pending = step(at("empty"), { type: "silent-due", trigger: "new-session", rules, freshId: "d1" }).state;
    const marker = { kind: "rules" as const, rules: ["style"], trigger: "new-session", delivery: "d1" };
    const found = step(
      pending,
      seen({ kind: "silent", trigger: "new-session", pending: ["d1"] }, view({ rules: [{ marker, created: 30 }] })),
    );
    expect(work(found.effects)).toEqual([]);
    expect(found.state.window).toMatchObject({ stage: "held", rulesCreated: 30 });
  });

  test("a compaction's window the host already works in: the rules are owed to the next message, and the log says so", () => {
    const after = step(
      at("empty", { agent: "build" }),
      seen({ kind: "silent", trigger: "compaction", pending: [] }, view({ movedOn: true })),
    );
    expect(after.state.window.stage).toBe("owed");
    expect(after.effects.map(named)).toEqual(["note went-on-before-rules"]);
  });

  test("a compaction's late word whose history read comes back after the next compaction restarted the window: read again, nothing sent twice", () => {
    // Compaction 1 (msg_1) restarted the window on its hook; its word comes, and the history is read.
    const first = step(step(holding, { type: "window-restarted", windowStart: "msg_1", now: 100, rules }).state, {
      type: "went-on",
    }).state;
    const asking = step(first, { type: "compaction-ended", rules });
    const [read] = asking.effects;
    if (read?.type !== "read-window") throw new Error("no read");
    // Meanwhile compaction 2 (msg_4) restarts the window, and its delivery lands.
    const second = step(step(asking.state, { type: "compaction-began" }).state, {
      type: "window-restarted",
      windowStart: "msg_4",
      now: 200,
      rules,
    }).state;
    const landed = {
      ...second,
      window: { ...second.window, stage: "held" as const, delivered: new Map([["style", style]]) },
    };
    // The read, asked before, shows compaction 1's window: stale, so it is asked again rather than taken for a new
    // compaction.
    const stale = step(landed, seen(read.purpose, view({ windowStart: "msg_1" })));
    expect(work(stale.effects)).toEqual(["read-window since-compaction for compaction-ended"]);
    expect(stale.state.window).toMatchObject({ stage: "held", windowStart: "msg_4" });
    const [again] = stale.effects;
    if (again?.type !== "read-window") throw new Error("no read");
    const fresh = step(
      stale.state,
      seen(
        again.purpose,
        view({ windowStart: "msg_4", rules: [{ marker: { kind: "rules", rules: ["style"], trigger: "compaction" } }] }),
      ),
    );
    expect(work(fresh.effects)).toEqual([]);
    expect(fresh.state.window.stage).toBe("held");
  });

  test("a user's turn whose history cannot be read delivers anyway, and says so", () => {
    const after = step(at("unread"), seen({ kind: "turn", turn: turn("hi") }));
    expect(after.effects.map(named)).toEqual([
      "note history-unreadable",
      "note delivered",
      "answer [style] first-message",
    ]);
  });

  test("a compaction's silent delivery whose history cannot be read sends anyway, and says so", () => {
    const after = step(at("empty", { agent: "build" }), seen({ kind: "silent", trigger: "compaction", pending: [] }));
    expect(after.effects.map(named)).toEqual(["note history-unreadable", "send-rules compaction [style] as d-new"]);
  });

  test("a new session's prompt composed before a compaction and seen stored after it: the compaction's delivery, blind, sends nothing again", () => {
    const sent = step(at("empty", { agent: "build" }), {
      type: "silent-due",
      trigger: "new-session",
      rules,
      freshId: "d1",
    }).state;
    const compacted = step(sent, { type: "window-restarted", agent: "build", now: 100, rules }).state;
    const landed = step(compacted, { type: "own-rules-stored", delivery: "d1", created: 120, rules });
    expect(work(landed.effects)).toEqual(["answer hide=false"]);
    const due = step(landed.state, { type: "silent-due", trigger: "compaction", rules, freshId: "d2" });
    const [read] = due.effects;
    if (read?.type !== "read-window") throw new Error("no read");
    const after = step(due.state, seen(read.purpose));
    expect(work(after.effects)).toEqual([]);
    expect(after.state.window.stage).toBe("held");
  });

  test("a user's message sorts after the window's rules message", () => {
    const held = at("held", {
      window: {
        ...NEW_SESSION.window,
        stage: "held",
        rulesCreated: 100,
        listedOnRequest: true,
        delivered: new Map([["style", style]]),
      },
    });
    expect(work(step(held, { type: "turn-may-go-on", turn: turn("hi", { created: 100 }), rules }).effects)).toEqual([
      "answer dated 101",
    ]);
  });

  test("a late copy of rules that went another way is hidden", () => {
    const sent = step(at("empty"), { type: "silent-due", trigger: "new-session", rules, freshId: "d1" }).state;
    // The user's message reads the window (the prompt's fate is unknown), finds nothing, and carries the rules itself.
    const reading = step(sent, { type: "turn-may-go-on", turn: turn("hi"), rules });
    expect(work(reading.effects)).toEqual(["read-window current for turn"]);
    const carried = step(reading.state, seen({ kind: "turn", turn: turn("hi") }, view())).state;
    expect(work(step(carried, { type: "own-rules-stored", delivery: "d1", created: 9, rules }).effects)).toEqual([
      "answer hide=true",
    ]);
  });

  test("a reload matches the whole working set again and forgets deleted rules' activations", () => {
    const active = step(at("held"), finished("read", ["src/a.ts"])).state;
    expect([...active.activation.activated.keys()]).toEqual(["typescript"]);
    const reloaded = step(active, { type: "rules-reloaded", rules: ruleSet(style), removed: ["typescript"] }).state;
    expect(reloaded.activation).toMatchObject({
      unmatched: ["src/a.ts"],
      fileMatches: new Map(),
      activated: new Map(),
    });
  });
});
