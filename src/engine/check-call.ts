/**
 * A tool call about to run, checked against the rules that forbid: what it
 * adds is worked out (a write's or an edit's result against the file on
 * disk, read within the bound), matched within the same bound, trust by
 * trust, letting the event loop run between slices; a write of rule files
 * is read for the rules it would weaken; and the session decides what the
 * call meets (`session/enforced.ts`). Matching never throws into the host: a
 * failure to check lets the call run, and is logged.
 */
import type { RuleFs } from "../discover/fs.js";
import type { ProposedCall } from "../enforce/proposed.js";
import { anyForbidden, checkedViolations, type EnforceOption, type Forbidding } from "../enforce/violations.js";
import type { LoadedRules } from "../formats/load.js";
import type { Logger } from "../log.js";
import type { Rule } from "../rule/rule.js";
import { trustOf } from "../rule/trust.js";
import type { RuleSet } from "../session/session.js";
import type { SessionStore } from "../session/store.js";
import { checkedChanges } from "./checked-changes.js";
import type { ToolVerdict } from "./contract.js";
import { type RuleWritePlace, weakenedByWrites } from "./rule-writes.js";
import type { Runner } from "./runner.js";
import { errorText } from "./timing.js";

/** A check lets the event loop run at least this often: the longest it holds the loop is this and one scan step. */
export const CHECK_SLICE_MS = 10;

/** Lets the host's event loop run (timers, I/O) before the scan goes on. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A file on disk larger than this is not compared with a write: the write is let through unchecked, and that is logged. */
export const MAX_COMPARED_BYTES = 8 * 1024 * 1024;

export interface CheckParts {
  sessions: SessionStore;
  runner: Runner;
  rules(): RuleSet;
  fs: Pick<RuleFs, "readFile" | "realpath">;
  log: Logger;
  enforce: EnforceOption;
  /** The most one check may take, reading the file on disk included. */
  checkMs: number;
  place: { directory: string; projectRoot: string };
  /** A clock for the budget (tests replace it). */
  now?: () => number;
  /** The rule files as loaded, and where they sit: a call writing one is read for the rules it would weaken. */
  loaded?: () => LoadedRules;
  ruleWrites?: RuleWritePlace;
}

export function callChecker(parts: CheckParts) {
  const { log, place } = parts;
  const managedOnly = new WeakMap<readonly Rule[], Forbidding>();
  const now = parts.now ?? (() => performance.now());

  return async function checkCall(sessionID: string, call: ProposedCall): Promise<ToolVerdict> {
    if (call.changes.length === 0) return {};
    const rules = parts.rules();
    const forbidding = underOption(rules.forbidding ?? { rules: rules.list }, parts.enforce);
    if (!anyForbidden(forbidding.rules)) return {};
    const state = parts.sessions.get(sessionID);
    if (!state) return {};
    const deadline = now() + parts.checkMs;
    const reading = { fs: parts.fs, log, maxBytes: MAX_COMPARED_BYTES, checkMs: parts.checkMs, place, now };
    const { changes, ruleWrites } = await checkedChanges(reading, sessionID, call, forbidding.rules, deadline);
    const as = { agent: state.agent, model: state.model };
    const check = await checkedViolations(
      { changes, forbidding, as, option: parts.enforce === "off" ? "block" : parts.enforce },
      { now, deadline, sliceMs: CHECK_SLICE_MS, pause: nextTurn },
    );
    if (!check.complete) {
      const names = (check.unreached ?? []).map((rule) => `${rule.name} (${rule.displayPath})`);
      log.warn(
        `Could not check all of a ${call.tool} call in session ${sessionID} against the rules that forbid within ${parts.checkMs} ms; what was not checked was let through. Not reached: ${names.join(", ") || "none named"}`,
        { sessionID, tool: call.tool, unreached: (check.unreached ?? []).map((rule) => rule.name) },
      );
    }
    const weakened = ruleWrites.length > 0 ? weakenedOrNone(ruleWrites, sessionID) : [];
    const event = {
      type: "call-checked" as const,
      tool: call.tool,
      callID: call.callID,
      violations: check.violations,
      ...(weakened.length > 0 ? { weakened } : {}),
    };
    const answer = await parts.runner.drive(sessionID, event);
    return answer?.refusal ? { refusal: answer.refusal } : {};
  };

  /**
   * With the option `off` only managed rules are checked: no setting of the
   * user's switches one off. Kept per rule set, whose patterns are compiled once.
   */
  function underOption(forbidding: Forbidding, option: EnforceOption): Forbidding {
    if (option !== "off") return forbidding;
    const known = managedOnly.get(forbidding.rules);
    if (known) return known;
    const only = { ...forbidding, rules: forbidding.rules.filter((rule) => trustOf(rule) === "managed") };
    managedOnly.set(forbidding.rules, only);
    return only;
  }

  /** The rules a call's writes of rule files would weaken; a failure to tell is logged, never thrown. */
  function weakenedOrNone(writes: Parameters<typeof weakenedByWrites>[0], sessionID: string) {
    if (!parts.loaded || !parts.ruleWrites) return [];
    try {
      return weakenedByWrites(writes, parts.loaded(), parts.ruleWrites);
    } catch (error) {
      log.error(
        `Could not tell whether a call in session ${sessionID} weakens a rule that forbids: ${errorText(error)}`,
        { sessionID },
      );
      return [];
    }
  }
}
