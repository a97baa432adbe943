/** The engine's runner over a fake port, for the silent delivery's tests (silent-delivery.test.ts). */
import { vi } from "vitest";
import { callChecking } from "../../src/engine/check-call.js";
import type { RulesPrompt, SessionPort } from "../../src/engine/contract.js";
import { noteWriter } from "../../src/engine/notes.js";
import { sessionRunner } from "../../src/engine/runner.js";
import { boundedCalls } from "../../src/engine/timing.js";
import type { Logger } from "../../src/log.js";
import type { SilentTrigger } from "../../src/session/marker.js";
import type { RuleSet } from "../../src/session/session.js";
import { DEFAULT_RETRY, type RetryPolicy } from "../../src/session/silent-delivery.js";
import { sessionStore } from "../../src/session/store.js";
import { makeRule } from "../support/rules.js";

/** A promise with its resolve/reject exposed. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

const style = makeRule({ name: "style", content: "Small functions." });
const rules: RuleSet = { list: [style], byName: new Map([["style", style]]), names: new Set(["style"]), warnings: 0 };

/** The engine's runner over a port that stores what it is sent; `send` does what a test says before it stores. */
export function setup(options: { retry?: RetryPolicy; sleep?: (ms: number) => Promise<void> } = {}) {
  const sent: Array<[string, SilentTrigger]> = [];
  const windows = new Map<string, { start: number; stored: RulesPrompt["marker"][] }>();
  const send = vi.fn(async (_id: string, _trigger: SilentTrigger): Promise<void> => undefined);
  const port: SessionPort = {
    async sendRules(prompt) {
      const trigger = prompt.marker.trigger as SilentTrigger;
      sent.push([prompt.sessionID, trigger]);
      const before = windows.get(prompt.sessionID)?.start ?? 0;
      await send(prompt.sessionID, trigger);
      // Stored in the window it was sent to: a compaction meanwhile left it in the window before.
      const window = windows.get(prompt.sessionID) ?? { start: 0, stored: [] };
      if (window.start === before)
        windows.set(prompt.sessionID, { ...window, stored: [...window.stored, prompt.marker] });
      return { created: 1_000 + sent.length };
    },
    async readWindow(sessionID) {
      const window = windows.get(sessionID) ?? { start: 0, stored: [] };
      const windowStart = window.start === 0 ? undefined : `compaction-${window.start}`;
      return {
        rules: window.stored.map((marker) => ({ marker })),
        choice: { agent: "build" },
        windowStart,
        movedOn: false,
      };
    },
  };
  const logged: string[] = [];
  const line = (level: string) => (message: string) => void logged.push(`${level}: ${message}`);
  const log: Logger = {
    debugEnabled: false,
    debug() {},
    info() {},
    warn: line("warn"),
    error: line("error"),
    flush: async () => {},
  };
  const slept: number[] = [];
  const sessions = sessionStore(() => {});
  const stopped = new AbortController();
  const runner = sessionRunner({
    port,
    sessions,
    rules: () => rules,
    log,
    note: noteWriter({ log, labels: {}, checkMs: 1_000 }),
    fs: { stat: async () => ({ size: 0, mtimeMs: 0 }) as never },
    within: boundedCalls(stopped.signal, log),
    stopped: stopped.signal,
    bounds: {
      historyTimeoutMs: 1_000,
      pathCheckMs: 100,
      compactionWaitMs: 1_000,
      promptTimeoutMs: 1_000,
      firstMessageWaitMs: 1_000,
      creationGraceMs: 0,
    },
    retry: options.retry ?? DEFAULT_RETRY,
    checking: callChecking({
      fs: { readFile: async () => new Uint8Array(), realpath: async (p) => p },
      checkMs: 100,
      projectRoot: "/p",
    }),
    sleep: async (ms) => {
      slept.push(ms);
      await options.sleep?.(ms);
    },
  });
  const delivery = {
    /** A new session seen: its delivery, awaited as the host's event awaits it. */
    created: (id: string) => {
      sessions.open(id);
      return runner.drive(id, { type: "seen", ignored: false, hasHistory: false, agent: "build", rules });
    },
    /** The host compacted the session and says so: the window is emptied, and its delivery awaited. */
    compacted: (id: string) => {
      sessions.open(id);
      const window = windows.get(id) ?? { start: 0, stored: [] };
      windows.set(id, { start: window.start + 1, stored: [] });
      return runner.drive(id, { type: "compaction-ended", rules });
    },
    holds: (id: string) => sessions.peek(id)?.window.stage === "held",
    underWay: (id: string) => sessions.peek(id)?.silent !== undefined,
  };
  return { delivery, send, sent, logged, slept, sessions, stopped };
}

/** `setup` with `tries` and a backoff of 100 ms that lasts until the test resolves `pause` (other waits do not). */
export function setupPausedAtBackoff(tries: number) {
  const pause = deferred();
  const harness = setup({
    retry: { tries, backoffMs: [100] },
    sleep: (ms) => (ms === 100 ? pause.promise : Promise.resolve()),
  });
  return { ...harness, pause };
}
