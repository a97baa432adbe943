/**
 * The changes a call proposes, as the check reads them: a write's lines and
 * an edit's result against the file on disk, read within the check's
 * deadline, so that an edit completing a forbidden text inside a line is
 * seen; a command as it is. A file that cannot be read lets a write through
 * and judges an edit alone (its new text's lines less its old text's), both
 * logged.
 *
 * Rule files are left out of the check, as `verify` leaves them: a rule that
 * forbids `console.log(` must not stop the model writing that rule, or
 * another like it. What a call does to them is returned apart, the text
 * before and after, so the user can be told when an enforcing rule is
 * weakened.
 */
import { resolve } from "node:path";
import type { RuleFs } from "../discover/fs.js";
import { errorCode } from "../discover/fs.js";
import { NATIVE_RULES } from "../discover/locations.js";
import { addedAlone, linesAdded } from "../enforce/added-lines.js";
import { appliedEdits } from "../enforce/applied-edits.js";
import type { ProposedCall, ProposedChange } from "../enforce/proposed.js";
import type { CheckedChange } from "../enforce/violations.js";
import type { Logger } from "../log.js";
import type { Rule } from "../rule/rule.js";
import { normalisePath } from "../session/paths.js";
import { inRulesFolder, linkedRuleFile } from "./rule-file-paths.js";
import { errorText, withTimeout } from "./timing.js";

/** A call's write or edit of a rule file: what the file will hold (the rules before it are the rule set's). */
export interface RuleFileWrite {
  /** Absolute. */
  readonly path: string;
  /** Its text after the call; undefined when that could not be worked out (the file could not be read, a replacement could not be applied). */
  readonly after?: string;
}

export interface CheckedChanges {
  /** What the rules are checked against, in the call's order; rule files left out. */
  readonly changes: CheckedChange[];
  readonly ruleWrites: RuleFileWrite[];
}

/** What reading the files on disk needs. */
export interface ChangeReading {
  fs: Pick<RuleFs, "readFile" | "realpath">;
  log: Logger;
  /** A larger file on disk is not read: a write to it is let through, an edit judged alone. */
  maxBytes: number;
  /** The check's bound, as the log names it. */
  checkMs: number;
  place: { directory: string; projectRoot: string };
  /** The project's own rules folders, one per level (`projectRulesDirs`); the root's alone when absent. */
  nativeFolders?: readonly string[];
  now: () => number;
}

type FileChange = Exclude<ProposedChange, { kind: "command" }>;

/** A file's text now (empty when it does not exist), or why it could not be read. */
type OnDisk = { readonly text: string } | { readonly problem: string };

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

/** The changes of `call` as the check reads them, every file read before `deadline`. */
export async function checkedChanges(
  reading: ChangeReading,
  sessionID: string,
  call: Pick<ProposedCall, "tool" | "changes">,
  rules: readonly Rule[],
  deadline: number,
): Promise<CheckedChanges> {
  const { log, place } = reading;
  const absolute = (raw: string) => resolve(place.directory, raw);
  const inProject = (raw: string) => normalisePath(raw, place.directory, place.projectRoot);
  const within = <T>(promise: Promise<T>) => withTimeout(promise, Math.max(0, deadline - reading.now()));
  const nativeFolders = reading.nativeFolders ?? [resolve(place.projectRoot, NATIVE_RULES)];
  const links = { fs: reading.fs, nativeFolders, rules, within };
  /** The rule file a change writes (as the rule set names it): one the rules were read from, or one in a rules folder of the project's own (a rule being written), as written or through symlinks. */
  const ruleFileOf = async (raw: string): Promise<string | undefined> => {
    const path = absolute(raw);
    return ruleFilesOf(rules).has(path) || inRulesFolder(path, nativeFolders)
      ? path
      : await linkedRuleFile(path, links);
  };

  async function onDisk(raw: string): Promise<OnDisk> {
    const { maxBytes } = reading;
    const read = reading.fs.readFile(absolute(raw), maxBytes).then(
      (bytes): OnDisk =>
        bytes.length > maxBytes
          ? { problem: `the file on disk is over ${maxBytes} bytes` }
          : { text: Buffer.from(bytes).toString("utf8") },
      (error: unknown): OnDisk =>
        errorCode(error) === "ENOENT"
          ? { text: "" }
          : { problem: `the file on disk could not be read: ${errorText(error)}` },
    );
    return (await within(read)) ?? { problem: `the file on disk could not be read within ${reading.checkMs} ms` };
  }

  const warn = (change: FileChange, problem: string, outcome: string) =>
    log.warn(
      `Could not check a ${call.tool} call of ${change.path} in session ${sessionID} against the rules that forbid (${problem}); ${outcome}`,
      {
        sessionID,
        tool: call.tool,
      },
    );

  /** The lines a change adds to its file; none for a write whose file cannot be read (let through). */
  async function checked(change: FileChange): Promise<CheckedChange | undefined> {
    const file = inProject(change.path);
    // A patch's update with no hunk changes nothing to read for.
    if (change.kind === "edit" && change.replacements.length === 0) return { kind: "file", file, added: change.added };
    const before = await onDisk(change.kind === "edit" ? (change.readFrom ?? change.path) : change.path);
    if ("problem" in before) {
      warn(change, before.problem, change.kind === "write" ? "it was let through" : "it was judged by the edit alone");
      return change.kind === "write" ? undefined : { kind: "file", file, added: change.added };
    }
    if (change.kind === "write") return { kind: "file", file, added: linesAdded(before.text, change.content) };
    const result = appliedEdits(before.text, change.replacements);
    return {
      kind: "file",
      file,
      added: [...linesAdded(before.text, result.text), ...result.unapplied.flatMap(addedAlone)],
    };
  }

  /** A rule file's text after the change: a write's content, or an edit applied to the text it reads (a move, its source's). */
  async function ruleWrite(change: FileChange, path: string): Promise<RuleFileWrite> {
    if (change.kind === "write") return { path, after: change.content };
    const source = await onDisk(change.readFrom ?? path);
    const result = "text" in source ? appliedEdits(source.text, change.replacements) : undefined;
    return result && result.unapplied.length === 0 ? { path, after: result.text } : { path };
  }

  const changes: CheckedChange[] = [];
  const toRuleFiles: Array<{ change: FileChange; path: string }> = [];
  for (const change of call.changes) {
    if (change.kind === "command") {
      changes.push(change);
      continue;
    }
    const ruleFile = await ruleFileOf(change.path);
    if (ruleFile !== undefined) toRuleFiles.push({ change, path: ruleFile });
    else {
      const read = await checked(change);
      if (read) changes.push(read);
    }
  }
  // Rule files are read last: one slow to read must not use up the time the checked files need.
  const ruleWrites: RuleFileWrite[] = [];
  for (const { change, path } of toRuleFiles) ruleWrites.push(await ruleWrite(change, path));
  return { changes, ruleWrites };
}
