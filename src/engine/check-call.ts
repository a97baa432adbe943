/**
 * A tool call about to run, checked against the rules that forbid: what it
 * adds is worked out (a write's lines against the file on disk, read within
 * the bound), matched within the same bound, and the session decides what
 * the call meets (`session/enforced.ts`). Matching never throws into the
 * host: a failure to check lets the call run, and is logged.
 */
import { isAbsolute, resolve } from "node:path";
import type { RuleFs } from "../discover/fs.js";
import { errorCode } from "../discover/fs.js";
import { linesAdded } from "../enforce/added-lines.js";
import type { ProposedCall, ProposedChange } from "../enforce/proposed.js";
import { anyForbidden, type CheckedChange, type EnforceOption, violationsIn } from "../enforce/violations.js";
import type { Logger } from "../log.js";
import type { Rule } from "../rule/rule.js";
import { normalisePath } from "../session/paths.js";
import type { RuleSet } from "../session/session.js";
import type { SessionStore } from "../session/store.js";
import type { ToolVerdict } from "./contract.js";
import type { Runner } from "./runner.js";
import { errorText, withTimeout } from "./timing.js";

/** A file on disk larger than this is not compared with a write: the write is let through unchecked, and that is logged. */
export const MAX_COMPARED_BYTES = 8 * 1024 * 1024;

const PROJECT_RULES_FOLDER = ".opencode/rules/";

/** The rule set's files (absolute), built once per rule set. */
const ruleFiles = new WeakMap<readonly Rule[], ReadonlySet<string>>();
function ruleFilesOf(rules: readonly Rule[]): ReadonlySet<string> {
  let files = ruleFiles.get(rules);
  if (!files) {
    files = new Set(rules.map((rule) => rule.path));
    ruleFiles.set(rules, files);
  }
  return files;
}

export interface CheckParts {
  sessions: SessionStore;
  runner: Runner;
  rules(): RuleSet;
  fs: Pick<RuleFs, "readFile">;
  log: Logger;
  enforce: EnforceOption;
  /** The most one check may take, reading the file on disk included. */
  checkMs: number;
  place: { directory: string; projectRoot: string };
  /** A clock for the budget (tests replace it). */
  now?: () => number;
}

export function callChecker(parts: CheckParts) {
  const { log, place } = parts;
  const now = parts.now ?? (() => performance.now());

  /**
   * The changes as the check reads them; a write whose file cannot be read in
   * time is left out, logged. Rule files are left out too, as `verify` leaves
   * them: a rule that forbids `console.log(` must not stop the model writing
   * that rule, or another like it.
   */
  async function checked(sessionID: string, tool: string, changes: readonly ProposedChange[], rules: readonly Rule[], deadline: number): Promise<CheckedChange[]> {
    const out: CheckedChange[] = [];
    for (const change of changes) {
      if (change.kind === "command") out.push(change);
      else if (isRuleFile(change.path, rules)) continue;
      else if (change.kind === "edit") out.push({ kind: "file", file: inProject(change.path), added: change.added });
      else {
        const before = await onDisk(change.path, Math.max(0, deadline - now()));
        if (typeof before === "string") out.push({ kind: "file", file: inProject(change.path), added: linesAdded(before, change.content) });
        else
          log.warn(`Could not check a ${tool} call of ${change.path} in session ${sessionID} against the rules that forbid (${before.problem}); it was let through`, {
            sessionID,
            tool,
          });
      }
    }
    return out;
  }

  /** The file's text now: empty when it does not exist yet. */
  async function onDisk(path: string, ms: number): Promise<string | { problem: string }> {
    const absolute = isAbsolute(path) ? path : resolve(place.directory, path);
    const read = parts.fs.readFile(absolute, MAX_COMPARED_BYTES).then(
      (bytes) => (bytes.length > MAX_COMPARED_BYTES ? { problem: `the file on disk is over ${MAX_COMPARED_BYTES} bytes` } : Buffer.from(bytes).toString("utf8")),
      (error: unknown) => (errorCode(error) === "ENOENT" ? "" : { problem: `the file on disk could not be read: ${errorText(error)}` }),
    );
    return (await withTimeout(read, ms)) ?? { problem: `the file on disk could not be read within ${parts.checkMs} ms` };
  }

  const inProject = (raw: string) => normalisePath(raw, place.directory, place.projectRoot);

  /** A file the rules were read from, or one in the project's own rules folder (a rule being written). */
  const isRuleFile = (raw: string, rules: readonly Rule[]): boolean => ruleFilesOf(rules).has(resolve(place.directory, raw)) || inProject(raw).startsWith(PROJECT_RULES_FOLDER);

  return async function checkCall(sessionID: string, call: ProposedCall): Promise<ToolVerdict> {
    if (parts.enforce === "off" || call.changes.length === 0) return {};
    const rules = parts.rules();
    if (!anyForbidden(rules.list)) return {};
    const state = parts.sessions.get(sessionID);
    if (!state) return {};
    const deadline = now() + parts.checkMs;
    const changes = await checked(sessionID, call.tool, call.changes, rules.list, deadline);
    const check = violationsIn(changes, rules.list, { agent: state.agent, model: state.model }, parts.enforce, { now, deadline });
    if (!check.complete)
      log.warn(
        `Could not check all of a ${call.tool} call in session ${sessionID} against the rules that forbid within ${parts.checkMs} ms; what was not checked was let through`,
        {
          sessionID,
          tool: call.tool,
        },
      );
    const answer = await parts.runner.drive(sessionID, { type: "call-checked", tool: call.tool, callID: call.callID, violations: check.violations });
    return answer?.refusal ? { refusal: answer.refusal } : {};
  };
}
