/**
 * The I/O of a tool call's check (the session decides what it means:
 * `session/call-check.ts`): which rule file each change writes, as written or
 * through symlinks; the files the check reads, on disk within its bound; the
 * match against the rules that forbid, within the same bound, trust by
 * trust, letting the event loop run between slices; and the rules a call's
 * writes of rule files would weaken. Nothing here throws into the host: what
 * fails is reported in the event that answers.
 */
import { resolve } from "node:path";
import type { RuleFs } from "../discover/fs.js";
import { errorCode } from "../discover/fs.js";
import { NATIVE_RULES } from "../discover/locations.js";
import type { OnDisk } from "../enforce/checked-changes.js";
import { checkedViolations } from "../enforce/violations.js";
import type { LoadedRules } from "../formats/load.js";
import type { Rule } from "../rule/rule.js";
import type { Effect } from "../session/effects.js";
import type { SessionEvent } from "../session/events.js";
import { inRulesFolder, linkedRuleFile } from "./rule-file-paths.js";
import { type RuleWritePlace, weakenedByWrites } from "./rule-writes.js";
import { errorText, withTimeout } from "./timing.js";

/** A check lets the event loop run at least this often: the longest it holds the loop is this and one scan step. */
export const CHECK_SLICE_MS = 10;

/** Lets the host's event loop run (timers, I/O) before the scan goes on. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A file on disk larger than this is not compared with a write: the write is let through unchecked, and that is logged.
 */
export const MAX_COMPARED_BYTES = 8 * 1024 * 1024;

interface CheckParts {
  fs: Pick<RuleFs, "readFile" | "realpath">;
  /** The most one check may take, reading the files on disk included. */
  checkMs: number;
  projectRoot: string;
  /** The project's own rules folders, one per level (`projectRulesDirs`); the root's alone when absent. */
  nativeFolders?: readonly string[];
  /** A larger file on disk is not read (`MAX_COMPARED_BYTES` when absent). */
  maxBytes?: number;
  /** A clock for the budget (tests replace it). */
  now?: () => number;
  /** The rule files as loaded, and where they sit: a call writing one is read for the rules it would weaken. */
  loaded?: () => LoadedRules;
  ruleWrites?: RuleWritePlace;
}

type Of<T extends Effect["type"]> = Extract<Effect, { type: T }>;

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

export function callChecking(parts: CheckParts) {
  const now = parts.now ?? (() => performance.now());
  const maxBytes = parts.maxBytes ?? MAX_COMPARED_BYTES;
  const nativeFolders = parts.nativeFolders ?? [resolve(parts.projectRoot, NATIVE_RULES)];
  const within =
    (deadline: number) =>
    <T>(promise: Promise<T>) =>
      withTimeout(promise, Math.max(0, deadline - now()));

  /**
   * The check's clock starts; per change, the rule file it writes, as the rule set names it: one the rules were read
   * from, or one in a rules folder of the project's own (a rule being written), as written or through symlinks.
   */
  async function findRuleFiles({ check }: Of<"find-rule-files">): Promise<SessionEvent> {
    const deadline = now() + parts.checkMs;
    const rules = check.forbidding.rules;
    const links = { fs: parts.fs, nativeFolders, rules, within: within(deadline) };
    const found: Array<string | undefined> = [];
    for (const change of check.call.changes) {
      if (change.kind === "command") found.push(undefined);
      else {
        const path = change.file.absolute;
        const asWritten = ruleFilesOf(rules).has(path) || inRulesFolder(path, nativeFolders);
        found.push(asWritten ? path : await linkedRuleFile(path, links));
      }
    }
    return { type: "rule-files-found", check, deadline, ruleFiles: found };
  }

  /**
   * Each file's text (empty when it does not exist), or why it could not be read, one after the other before the
   * deadline.
   */
  async function readFiles({ check, reads }: Of<"read-files">): Promise<SessionEvent> {
    const read = [];
    for (const { change, path } of reads) read.push({ change, path, disk: await onDisk(path, check.deadline) });
    return { type: "files-read", check, read };
  }

  async function onDisk(path: string, deadline: number): Promise<OnDisk> {
    const reading = parts.fs.readFile(path, maxBytes).then(
      (bytes): OnDisk =>
        bytes.length > maxBytes
          ? { problem: `the file on disk is over ${maxBytes} bytes` }
          : { text: Buffer.from(bytes).toString("utf8") },
      (error: unknown): OnDisk =>
        errorCode(error) === "ENOENT"
          ? { text: "" }
          : { problem: `the file on disk could not be read: ${errorText(error)}` },
    );
    return (
      (await within(deadline)(reading)) ?? { problem: `the file on disk could not be read within ${parts.checkMs} ms` }
    );
  }

  /**
   * The rules the changes break, matched until the deadline; the rules the call's writes of rule files would weaken.
   */
  async function matchCall(effect: Of<"match-call">): Promise<SessionEvent> {
    const { tool, callID, changes, forbidding, as, option, deadline } = effect;
    const check = await checkedViolations(
      { changes, forbidding, as, option },
      { now, deadline, sliceMs: CHECK_SLICE_MS, pause: nextTurn },
    );
    const weakening = effect.ruleWrites.length > 0 ? weakenedBy(effect.ruleWrites) : {};
    return {
      type: "call-checked",
      tool,
      ...(callID === undefined ? {} : { callID }),
      counted: effect.counted,
      violations: check.violations,
      ...(check.complete ? {} : { unreached: check.unreached ?? [] }),
      ...weakening,
    };
  }

  /** A failure to tell is reported, never thrown. */
  function weakenedBy(writes: Of<"match-call">["ruleWrites"]) {
    if (!parts.loaded || !parts.ruleWrites) return {};
    try {
      const weakened = weakenedByWrites(writes, parts.loaded(), parts.ruleWrites);
      return weakened.length > 0 ? { weakened } : {};
    } catch (error) {
      return { weakeningUnknown: errorText(error) };
    }
  }

  return { findRuleFiles, readFiles, matchCall };
}
