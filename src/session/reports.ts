/**
 * The state of every session the running plugin knows — working set, active
 * rules with reasons, delivered rules — for tools that run in the same
 * process (tests, a debugging command). Not exported from the entry module:
 * OpenCode would call it as a plugin.
 */
import type { SessionReport } from "./state.js";

const reporters: Array<(sessionID: string) => SessionReport | undefined> = [];

/** Registers a plugin instance's reports; the returned function releases them (on `dispose`). */
export function registerSessionReports(report: (sessionID: string) => SessionReport | undefined): () => void {
  reporters.push(report);
  return () => {
    const index = reporters.indexOf(report);
    if (index >= 0) reporters.splice(index, 1);
  };
}

/** How many plugin instances are registered: each started and not disposed. */
export function registeredReports(): number {
  return reporters.length;
}

/** What the plugin knows about a session (the newest plugin instance first), or undefined when it knows nothing. */
export function sessionReport(sessionID: string): SessionReport | undefined {
  for (const report of [...reporters].reverse()) {
    const found = report(sessionID);
    if (found) return found;
  }
  return undefined;
}
