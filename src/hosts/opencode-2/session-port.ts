/**
 * OpenCode 2's side of the session port. A rules message is not stored in the
 * session's history: it is an entry of the session's window, put into every
 * model request by the `context` hook (`request-rules.ts`). So sending is
 * recording, and what the window holds is what the entries say.
 *
 * The entries outlive a restart of OpenCode in the plugin's storage
 * (`ctx.storage`, durable and scoped to the plugin's id): the requests after
 * it carry the same rules, at the same places, as the ones before.
 */
import type { RulesMarker } from "../../session/marker.js";
import type { SessionPort } from "../../engine/contract.js";
import { byDeadline, errorText, withTimeout } from "../../engine/timing.js";
import type { Logger } from "../../log.js";
import type { StorageDomain } from "./api.js";
import { HOST_CALL_MS } from "./host-calls.js";
import type { RulesEntry } from "./request-rules.js";
import { restoredEntry, restoredRead, type RuleRead, storedEntry } from "./stored-window.js";

/**
 * Entries one window holds at most. Each is a delivery of rules the window
 * lacked, so a window needs a few; a session past this (rules edited over and
 * over) starts its window again with one entry of every rule it needs.
 */
export const MAX_ENTRIES = 200;

/** How long one write to the plugin's storage is waited for; past it the next write goes on. */
const HOST_WRITE_MS = 2000;

/**
 * Rules given outside the entries (read with the `rule` tool, or with a refused call) one window
 * remembers for the Rules panel; past this the oldest go.
 */
const MAX_READS = 200;

export type RulesLedger = ReturnType<typeof rulesLedger>;

/**
 * The rules entries of each session's window, and the rules the model read
 * in it; `changed` hears of every change (the Rules panel follows it).
 */
export function rulesLedger(
  storage: StorageDomain | undefined,
  log: Logger,
  changed: (sessionID: string) => void = () => undefined,
) {
  const windows = new Map<string, readonly RulesEntry[]>();
  const reads = new Map<string, readonly RuleRead[]>();
  /** One write at a time per session, in order: a later state never loses to an earlier one. */
  const writes = new Map<string, Promise<void>>();
  const key = (sessionID: string) => `window/${sessionID}`;
  const unsaved = new Set<string>();

  /**
   * The state the write waiting for its turn stores (taken when saved: later saves before it starts
   * replace it, one write for them all).
   */
  const queued = new Map<string, { entries: readonly RulesEntry[] | undefined; reads: readonly RuleRead[] }>();
  /**
   * How many writes of each session have started: a write that lands after it was given up may have
   * overwritten a later one.
   */
  const started = new Map<string, number>();
  let closed = false;

  const save = (sessionID: string) => {
    if (!storage) return;
    const waiting = queued.has(sessionID);
    queued.set(sessionID, { entries: windows.get(sessionID), reads: reads.get(sessionID) ?? [] });
    if (waiting) return;
    const write = (writes.get(sessionID) ?? Promise.resolve())
      .then(() => {
        const state = queued.get(sessionID);
        queued.delete(sessionID);
        const mine = (started.get(sessionID) ?? 0) + 1;
        started.set(sessionID, mine);
        const storing = Promise.resolve().then(() =>
          state?.entries === undefined
            ? storage.remove(key(sessionID))
            : storage.set(key(sessionID), { entries: state.entries.map(storedEntry), reads: state.reads }),
        );
        // Landing late, it may have overwritten a later state: that state is stored again.
        const drop = () => {
          if (!closed && started.get(sessionID) !== mine && !writes.has(sessionID)) save(sessionID);
        };
        return byDeadline(storing, HOST_WRITE_MS, {
          late: { log, what: `The plugin's storage's answer to saving session ${sessionID}`, drop },
        });
      })
      .catch((error) => {
        // Said once per session: storage that fails, fails at every change.
        if (unsaved.has(sessionID)) return;
        unsaved.add(sessionID);
        log.warn(
          `Could not save the rules of session ${sessionID} in the plugin's storage (${errorText(error)}); they stay in effect until OpenCode restarts`,
        );
      })
      .finally(() => {
        if (writes.get(sessionID) === write) writes.delete(sessionID);
      });
    writes.set(sessionID, write);
  };

  const set = (sessionID: string, entries: readonly RulesEntry[]) => {
    windows.set(sessionID, entries);
    // A new window holds no reads.
    if (entries.length === 0) reads.delete(sessionID);
    save(sessionID);
    changed(sessionID);
  };

  return {
    entries: (sessionID: string): readonly RulesEntry[] => windows.get(sessionID) ?? [],
    add(sessionID: string, entry: RulesEntry) {
      set(sessionID, [...(windows.get(sessionID) ?? []), entry]);
    },
    /** The entries after a placement; saved only when an anchor changed. */
    update(sessionID: string, entries: readonly RulesEntry[]) {
      const before = windows.get(sessionID) ?? [];
      if (entries.length === before.length && entries.every((entry, i) => entry === before[i])) return;
      set(sessionID, entries);
    },
    /**
     * The model got rules outside the entries (it read one with the `rule` tool; a call was refused):
     * the panel shows them in the window from here on.
     */
    given(sessionID: string, marker: RulesMarker) {
      const at = windows.get(sessionID)?.length ?? 0;
      reads.set(sessionID, [...(reads.get(sessionID) ?? []), { marker, at }].slice(-MAX_READS));
      save(sessionID);
      changed(sessionID);
    },
    /**
     * What the Rules panel reads: the marks of the window's rules, in the
     * order given, the rules read with the tool among them. An entry waiting
     * for its user's message to reach a request is not in the window yet.
     */
    panelMarkers(sessionID: string): RulesMarker[] {
      const entries = windows.get(sessionID) ?? [];
      const read = reads.get(sessionID) ?? [];
      const markers: RulesMarker[] = [];
      let next = 0;
      entries.forEach((entry, i) => {
        for (; next < read.length && (read[next] as RuleRead).at <= i; next++)
          markers.push((read[next] as RuleRead).marker);
        if (entry.anchor !== undefined || entry.awaits === undefined) markers.push(entry.marker);
      });
      for (; next < read.length; next++) markers.push((read[next] as RuleRead).marker);
      return markers;
    },
    /** The window moved on: its entries are no longer sent. */
    startWindow(sessionID: string) {
      set(sessionID, []);
    },
    /**
     * Reads the session's entries from storage; true when it held some.
     * Unreadable storage counts as none, and so does storage that does not
     * answer within `HOST_CALL_MS`: its late answer is dropped (the session
     * gets its rules again, and they must not be there twice).
     */
    async restore(sessionID: string): Promise<boolean> {
      if (!storage || windows.has(sessionID)) return (windows.get(sessionID)?.length ?? 0) > 0;
      let value: unknown;
      try {
        const what = `The plugin's storage's answer for session ${sessionID}`;
        const read = await withTimeout(
          Promise.resolve().then(async () => ({ value: await storage.get(key(sessionID)) })),
          HOST_CALL_MS,
          { log, what },
        );
        if (!read) {
          log.warn(
            `The plugin's storage did not give the rules of session ${sessionID} within ${HOST_CALL_MS} ms; the session gets its rules again`,
          );
          return false;
        }
        value = read.value;
      } catch (error) {
        log.warn(
          `Could not read the rules of session ${sessionID} from the plugin's storage (${errorText(error)}); the session gets its rules again`,
        );
        return false;
      }
      // Written by this plugin, but storage is outside it: anything malformed is left out.
      const found = ((value as { entries?: unknown } | undefined)?.entries ?? []) as unknown[];
      const entries = Array.isArray(found)
        ? found.slice(0, MAX_ENTRIES).flatMap((entry) => restoredEntry(entry) ?? [])
        : [];
      const foundReads = (value as { reads?: unknown } | undefined)?.reads;
      if (!windows.has(sessionID)) {
        windows.set(sessionID, entries);
        const read = Array.isArray(foundReads)
          ? foundReads.slice(-MAX_READS).flatMap((item) => restoredRead(item) ?? [])
          : [];
        if (read.length > 0) reads.set(sessionID, read);
        changed(sessionID);
      }
      return entries.length > 0;
    },
    forget(sessionID: string) {
      windows.delete(sessionID);
      reads.delete(sessionID);
      unsaved.delete(sessionID);
      save(sessionID);
    },
    /** Writes still under way (tests, shutdown); each ends by its deadline. */
    async settled() {
      await Promise.all([...writes.values()]);
    },
    close() {
      closed = true;
      windows.clear();
      reads.clear();
      unsaved.clear();
    },
  };
}

export function ledgerPort(ledger: RulesLedger): SessionPort {
  return {
    async sendRules(prompt) {
      ledger.add(prompt.sessionID, { text: prompt.text, marker: prompt.marker });
      return { created: Date.now() };
    },
    // The entries are the window: after a compaction or a revert they were cleared (`startWindow`), so both
    // scopes read the same.
    async readWindow(sessionID) {
      // Placed at fixed anchors in every request, a rules entry never lands after what the model read: the
      // window never moves on past it.
      return { rules: ledger.entries(sessionID).map(({ marker }) => ({ marker })), choice: {}, movedOn: false };
    },
  };
}
