/**
 * A tool call's file changes as the check reads them, from the text each
 * file had before the call (the engine reads it within the check's bound):
 * a write's lines not already in the file, an edit's result against the
 * file, so that an edit completing a forbidden text inside a line is seen.
 * A file that could not be read lets a write through and judges an edit
 * alone (its new text's lines less its old text's). A change to a rule file
 * is not checked: what it leaves in the file is worked out instead, so the
 * user can be told when a rule that forbids is weakened. Pure.
 */
import { addedAlone, addedLines, linesAdded } from "./added-lines.js";
import { appliedEdits, editedLines } from "./applied-edits.js";
import type { PlacedFileChange } from "./proposed.js";
import type { CheckedChange } from "./violations.js";

/** A file's text before the call (empty when it does not exist), or why it could not be read. */
export type OnDisk = { readonly text: string } | { readonly problem: string };

/** A call's write or edit of a rule file: what the file will hold (the rules before it are the rule set's). */
export interface RuleFileWrite {
  /** Absolute, as the rule set names it. */
  readonly path: string;
  /**
   * Its text after the call; undefined when that could not be worked out (the file could not be read, a replacement
   * could not be applied).
   */
  readonly after?: string;
}

/** A change the check could not read the file of: let through (a write) or judged alone (an edit). */
export interface UncheckedChange {
  /** Its path as the call wrote it. */
  readonly written: string;
  readonly problem: string;
  readonly outcome: "let through" | "judged alone";
}

/**
 * The file a change to a checked file needs read: a write's (the lines already there add nothing), an edit's that
 * replaces something.
 */
export function checkedSource(change: PlacedFileChange): string | undefined {
  if (change.kind === "write") return change.file.absolute;
  return change.replacements.length === 0 ? undefined : (change.readFrom ?? change.file).absolute;
}

/**
 * The file a change to rule file `ruleFile` needs read: an edit's (a move, its source's); a write gives its text whole.
 */
export const ruleSource = (change: PlacedFileChange, ruleFile: string): string | undefined =>
  change.kind === "edit" ? (change.readFrom?.absolute ?? ruleFile) : undefined;

/**
 * What a change adds to a checked file, given its text before (`checkedSource`'s read); nothing for a write let
 * through.
 */
export function checkedChange(
  change: PlacedFileChange,
  before: OnDisk | undefined,
): { checked?: CheckedChange; unchecked?: UncheckedChange } {
  const file = change.file.path;
  // A patch's update with no hunk changes nothing to read for.
  if (change.kind === "edit" && change.replacements.length === 0)
    return { checked: { kind: "file", file, added: change.added } };
  if (before === undefined || "problem" in before) {
    const problem = before?.problem ?? "the file on disk was not read";
    if (change.kind === "write") return { unchecked: { written: change.written, problem, outcome: "let through" } };
    return {
      checked: { kind: "file", file, added: change.added },
      unchecked: { written: change.written, problem, outcome: "judged alone" },
    };
  }
  if (change.kind === "write")
    return { checked: { kind: "file", file, added: linesAdded(before.text, change.content) } };
  const edited = editedLines(before.text, change.replacements);
  return {
    checked: {
      kind: "file",
      file,
      added: [...addedLines(edited.before, edited.after), ...edited.unapplied.flatMap(addedAlone)],
    },
  };
}

/** A rule file's text after the change: a write's content, or an edit applied to the text it reads (`ruleSource`'s). */
export function ruleFileWrite(change: PlacedFileChange, path: string, source: OnDisk | undefined): RuleFileWrite {
  if (change.kind === "write") return { path, after: change.content };
  const result = source && "text" in source ? appliedEdits(source.text, change.replacements) : undefined;
  return result && result.unapplied.length === 0 ? { path, after: result.text } : { path };
}
