/**
 * Issue 30 on OpenCode 2: a host whose calls never answer holds nothing past
 * its bound. For each call the adapter awaits (the session's info, the
 * plugin's storage read and writes, every registration and its undoing, the
 * event stream, the terminal UI's panel call): the host is deaf, the hook,
 * setup or cleanup settles by its deadline, and a late answer is dropped and
 * logged (a registration made late is undone; a storage read that comes late
 * is not taken; a late write is followed by the latest state). Fake timers:
 * what is asserted is whether each has settled, not how long it took.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { RunningRulebook } from "../../src/engine/rulebook.js";
import type {
  HostEvent,
  PluginContext,
  Registration,
  SessionInfo,
  ToolEditor,
} from "../../src/hosts/opencode-2/api.js";
import { followSessions, HOST_CALL_MS, REGISTER_MS } from "../../src/hosts/opencode-2/host-calls.js";
import { panelService } from "../../src/hosts/opencode-2/panel-rpc.js";
import { registerHooks } from "../../src/hosts/opencode-2/plugin.js";
import { rulesLedger } from "../../src/hosts/opencode-2/session-port.js";
import { PANEL_ANSWER_MS, setupRulesPanel, type TuiContext } from "../../src/hosts/opencode-2/tui-panel.js";
import { loadPanelUi } from "../../src/hosts/panel-ui.js";
import type { Logger } from "../../src/log.js";
import type { RulesMarker } from "../../src/session/marker.js";
import { answerLater, collectedLog, deaf, hasSettled } from "../support/deaf-host.js";
import { createRoot, draw } from "../support/opentui-stand-in.js";

const MARKER: RulesMarker = { kind: "rules", rules: ["style"], trigger: "new-session", delivery: "d1" };

/** The engine as far as the adapter calls it: every session is new, and a user's first message gets the rules. */
function engine() {
  const seen: Array<{ id: string; parentID?: string; hasHistory: boolean }> = [];
  const rulebook = {
    seen,
    sessionSeen: async (session: { id: string; parentID?: string; hasHistory: boolean }) => void seen.push(session),
    windowRestarted: async () => undefined,
    userTurn: async () => ({ rules: { text: "RULES", marker: MARKER } }),
    toolAboutToRun: async () => ({}),
    toolResult: async () => undefined,
    ruleRequested: () => ({ output: "rule" }),
    onForget: () => () => undefined,
    sessionGone: () => undefined,
    dispose: () => undefined,
  };
  return rulebook;
}

/** A host whose calls named in `deafTo` never answer and ignore any signal; the others answer at once. Late answers come from `later`. */
function host(deafTo: ReadonlySet<string>, later: Map<string, ReturnType<typeof answerLater<unknown>>> = new Map()) {
  const hooks = new Map<string, (event: unknown) => unknown>();
  const disposed: string[] = [];
  const registration = (what: string): Registration => ({
    dispose: () => {
      disposed.push(what);
      return deafTo.has("dispose") ? deaf() : Promise.resolve();
    },
  });
  const call = <T>(name: string, value: () => T): Promise<T> => {
    const late = later.get(name);
    if (late) return late.promise.then(value);
    return deafTo.has(name) ? deaf() : Promise.resolve().then(value);
  };
  const ctx: PluginContext = {
    options: {},
    location: { directory: "/p" },
    session: {
      hook: (name, callback) =>
        call(`session.hook ${name}`, () => {
          hooks.set(`session.${name}`, callback as (event: unknown) => unknown);
          return registration(`session.${name}`);
        }),
      get: ({ sessionID }) => call("session.get", (): SessionInfo => ({ id: sessionID, parentID: "ses_parent" })),
    },
    tool: {
      hook: (name, callback) =>
        call(`tool.hook ${name}`, () => {
          hooks.set(`tool.${name}`, callback as (event: unknown) => unknown);
          return registration(`tool.${name}`);
        }),
      transform: (callback) =>
        call("tool.transform", () => {
          callback({ add: () => undefined } as ToolEditor);
          return registration("tool.transform");
        }),
    },
    event: {
      subscribe: () => ({
        [Symbol.asyncIterator]: () => ({
          next: () => (deafTo.has("event") ? deaf() : new Promise<IteratorResult<HostEvent>>(() => undefined)),
        }),
      }),
    },
    storage: {
      get: () => call("storage.get", () => ({ entries: [{ text: "OLD RULES", marker: MARKER }] })),
      set: () => call("storage.set", () => undefined),
      remove: () => call("storage.remove", () => undefined),
    },
    rpc: {
      register: () => call("rpc.register", () => ({ ...registration("rpc"), events: { emit: async () => undefined } })),
    },
  };
  return { ctx, hooks, disposed };
}

async function adapter(deafTo: string[], later?: Map<string, ReturnType<typeof answerLater<unknown>>>) {
  const { log, lines } = collectedLog();
  const fake = host(new Set(deafTo), later);
  const rulebook = engine();
  const panel = panelService(log as Logger);
  const ledger = rulesLedger(fake.ctx.storage, log as Logger, panel.changed);
  const setup = registerHooks(fake.ctx, {
    rulebook: rulebook as unknown as RunningRulebook,
    ledger,
    panel,
    log: log as Logger,
  });
  return { ...fake, rulebook, ledger, lines, setup };
}

const context = (sessionID: string) => ({
  sessionID,
  agent: "build",
  model: { providerID: "p", id: "m" },
  system: [],
  messages: [{ id: "msg_1", role: "user", content: [{ type: "text", text: "hi" }] }],
});

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("OpenCode 2: a host deaf to the adapter's calls", () => {
  test("ctx.session.get never answering: the context hook settles at its bound, and the session counts as top-level", async () => {
    const { setup, hooks, rulebook, lines } = await adapter(["session.get"]);
    await setup;
    const hook = Promise.resolve(hooks.get("session.context")?.(context("ses_a")));
    await vi.advanceTimersByTimeAsync(HOST_CALL_MS - 1);
    expect(await hasSettled(hook)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await hasSettled(hook)).toBe(true);
    expect(rulebook.seen).toEqual([expect.objectContaining({ id: "ses_a", parentID: undefined })]);
    expect(lines).toContain(
      `warn: OpenCode did not give session ses_a within ${HOST_CALL_MS} ms; treating it as a top-level session`,
    );
  });

  test("ctx.storage.get answering late: the context hook settles at its bound, and the late entries are dropped, not placed", async () => {
    const late = answerLater<unknown>();
    const { setup, hooks, rulebook, ledger, lines } = await adapter([], new Map([["storage.get", late]]));
    await setup;
    const hook = Promise.resolve(hooks.get("session.context")?.(context("ses_b")));
    await vi.advanceTimersByTimeAsync(HOST_CALL_MS);
    expect(await hasSettled(hook)).toBe(true);
    expect(rulebook.seen).toEqual([expect.objectContaining({ id: "ses_b", hasHistory: false })]);
    late.answer(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(ledger.entries("ses_b").map((entry) => entry.text)).not.toContain("OLD RULES");
    expect(
      lines.some(
        (line) =>
          line.startsWith("info: The plugin's storage's answer for session ses_b came") &&
          line.endsWith("the answer was dropped"),
      ),
    ).toBe(true);
  });

  test("a registration never answering: setup settles at its bound, says what it lacks, and undoes the registration when it comes late", async () => {
    const late = answerLater<unknown>();
    const { setup, disposed, lines } = await adapter([], new Map([["session.hook context", late]]));
    await vi.advanceTimersByTimeAsync(REGISTER_MS - 1);
    expect(await hasSettled(setup)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await hasSettled(setup)).toBe(true);
    expect(lines).toContain(
      `error: OpenCode refused the plugin's context hook (no answer in ${REGISTER_MS} ms); the plugin works without it`,
    );
    late.answer(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(disposed).toEqual(["session.context"]);
  });

  test("ctx.rpc.register never answering: setup settles at its bound; the Rules panel is missing, the hooks are not", async () => {
    const { setup, hooks, lines } = await adapter(["rpc.register"]);
    await vi.advanceTimersByTimeAsync(REGISTER_MS);
    expect(await hasSettled(setup)).toBe(true);
    expect([...hooks.keys()].sort()).toEqual([
      "session.context",
      "session.prompt",
      "tool.execute.after",
      "tool.execute.before",
    ]);
    expect(
      lines.some((line) =>
        line.startsWith("warn: Could not offer the Rules panel to OpenCode's terminal UI (no answer in"),
      ),
    ).toBe(true);
  });

  test("undoing registrations and writing storage never answering: the cleanup settles by its bounds", async () => {
    const { setup, hooks } = await adapter(["dispose", "storage.set"]);
    const cleanup = await setup;
    // A change the ledger saves: a user's message that carries the rules.
    await hooks.get("session.prompt")?.({
      sessionID: "ses_c",
      messageID: "msg_1",
      prompt: { text: "hi" },
      delivery: "steer",
    });
    const hook = Promise.resolve(hooks.get("session.context")?.(context("ses_c")));
    await vi.advanceTimersByTimeAsync(0);
    expect(await hasSettled(hook)).toBe(true);
    const cleaning = Promise.resolve(cleanup());
    await vi.advanceTimersByTimeAsync(REGISTER_MS * 3);
    expect(await hasSettled(cleaning)).toBe(true);
  });

  test("the event stream never answering, deaf to its signal: following it ends when the plugin stops", async () => {
    const { ctx } = host(new Set(["event"]));
    const stop = new AbortController();
    const following = followSessions(ctx, stop.signal, () => undefined, collectedLog().log as Logger);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await hasSettled(following)).toBe(false);
    stop.abort();
    expect(await hasSettled(following)).toBe(true);
  });
});

describe("OpenCode 2: the plugin's storage deaf to a write", () => {
  test("the next write goes on past its bound, and a write that lands late is followed by the latest state", async () => {
    const stored = new Map<string, unknown>();
    const first = answerLater<void>();
    let writes = 0;
    const storage = {
      get: async () => undefined,
      // A write takes effect when it answers: the first one lands late, over the state written after it.
      set: (key: string, value: unknown) => {
        writes++;
        if (writes === 1) return first.promise.then(() => void stored.set(key, value));
        stored.set(key, value);
        return Promise.resolve();
      },
      remove: async (key: string) => void stored.delete(key),
    };
    const { log, lines } = collectedLog();
    const ledger = rulesLedger(storage, log as Logger);
    ledger.add("ses_d", { text: "ONE", marker: MARKER });
    await vi.advanceTimersByTimeAsync(0);
    ledger.add("ses_d", { text: "TWO", marker: MARKER });
    await vi.advanceTimersByTimeAsync(2_000);
    const texts = () =>
      ((stored.get("window/ses_d") as { entries: Array<{ text: string }> } | undefined)?.entries ?? []).map(
        (entry) => entry.text,
      );
    expect(texts()).toEqual(["ONE", "TWO"]);
    expect(
      lines.some(
        (line) => line.startsWith("warn: Could not save the rules of session ses_d") && line.includes("no answer in"),
      ),
    ).toBe(true);
    // The first write lands now, putting back the state before TWO; the latest is written again after it.
    first.answer();
    await vi.advanceTimersByTimeAsync(0);
    await ledger.settled();
    expect(texts()).toEqual(["ONE", "TWO"]);
    expect(writes).toBe(3);
  });
});

describe("OpenCode 2's terminal UI: a server deaf to the panel's call", () => {
  test("the panel shows nothing, said once; an answer after its bound is dropped, not drawn", async () => {
    const ui = await loadPanelUi();
    if (!ui) throw new Error("the stand-in renderer did not load");
    const late = answerLater<unknown>();
    let render: ((input: { sessionID: string }) => unknown) | undefined;
    const tui: TuiContext = {
      // A client that ignores the signal it is given.
      client: { rpc: () => ({ panel: () => late.promise, events: { on: () => () => undefined } }) },
      theme: { text: { base: "b", muted: "m" } },
      ui: {
        slot: (claim) => {
          render = claim.render;
          return () => undefined;
        },
      },
    };
    const { log, lines } = collectedLog();
    setupRulesPanel(tui, ui, log as Logger);
    const drawn = createRoot((dispose) => ({ node: render?.({ sessionID: "ses_e" }), dispose }));
    await vi.advanceTimersByTimeAsync(PANEL_ANSWER_MS);
    expect(lines).toContain(
      `warn: The Rules panel could not read session ses_e from the server: no answer in ${PANEL_ANSWER_MS} ms`,
    );
    late.answer({ markers: [MARKER] });
    await vi.advanceTimersByTimeAsync(0);
    expect(draw(drawn.node)).toEqual([]);
    expect(
      lines.some(
        (line) =>
          line.startsWith("info: The server's Rules panel answer for session ses_e came") && line.endsWith("dropped"),
      ),
    ).toBe(true);
    drawn.dispose();
  });
});
