/**
 * What a tool call proposes to do, in no host's words: the text it would
 * add to files, the commands it would run. A host's adapter reads it from
 * its tools' arguments; the engine checks it against the rules that forbid.
 */

/** A line a call adds, with its 1-based line number in the file after the call when known. */
export interface AddedLine {
  readonly text: string;
  readonly line?: number;
}

/** One thing a call would do. */
export type ProposedChange =
  /** A file written whole: the lines not already in the file on disk count as added (the engine reads it). */
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  /** Lines added to a file, as the call says (an edit's new text, a patch's `+` lines). */
  | { readonly kind: "edit"; readonly path: string; readonly added: readonly AddedLine[] }
  /** A shell command about to run. */
  | { readonly kind: "command"; readonly command: string };

/** The host's tool call about to run. `changes` is empty for a tool that neither writes files nor runs commands (or that the plugin does not know). */
export interface ProposedCall {
  readonly tool: string;
  /** The host's id of the call: its result names it too. */
  readonly callID?: string;
  /** The files its arguments name (the working set), raw. */
  readonly files: readonly string[];
  readonly changes: readonly ProposedChange[];
}
