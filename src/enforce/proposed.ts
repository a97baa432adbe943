/**
 * A tool call in no host's words: the files it names, the text it would add
 * to files, the commands it would run. A host's adapter reads it from its
 * tools' arguments once; the session places its paths once (`PlacedCall`),
 * checks it against the rules that forbid before it runs, and takes what it
 * named when its result comes.
 */

/** A line a call adds, with its 1-based line number in the file after the call when known. */
export interface AddedLine {
  readonly text: string;
  readonly line?: number;
}

/**
 * One replacement an edit makes in a file's text, as the host would apply it
 * (`applied-edits.ts`). An empty `oldText` replaces the whole text (OpenCode
 * 1.x's edit with an empty oldString writes newString as the file).
 */
export interface Replacement {
  readonly oldText: string;
  readonly newText: string;
  /** Every occurrence (an edit's `replaceAll`); without it an edit's text must occur once, as the host requires. */
  readonly all?: boolean;
  /**
   * A patch's hunk: whole lines, each ended by `\n` in both texts, sought from
   * where the file's previous hunk ended and taken at the first match, as
   * patch tools seek; no old lines appends the new ones at the end.
   */
  readonly hunk?: boolean;
}

/** One thing a call would do. */
export type ProposedChange =
  /** A file written whole: the lines not already in the file on disk count as added (the engine reads it). */
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  /**
   * A file edited in place: the engine applies `replacements` in order to the
   * file's text (read from `readFrom` when the call moves the file to `path`)
   * and takes the lines the result has that the file did not. `added` is the
   * edit judged alone (its new text's lines less its old text's), for a file
   * that cannot be read.
   */
  | {
      readonly kind: "edit";
      readonly path: string;
      readonly readFrom?: string;
      readonly replacements: readonly Replacement[];
      readonly added: readonly AddedLine[];
    }
  /** A shell command about to run. */
  | { readonly kind: "command"; readonly command: string };

/**
 * A host's tool call, its arguments read once. `changes` is empty for a tool that neither writes files nor runs
 * commands (or that the plugin does not know).
 */
export interface ToolCall {
  readonly tool: string;
  /** The host's id of the call: its result names it too. */
  readonly callID?: string;
  /** The files its arguments name (the working set), as written. */
  readonly files: readonly string[];
  readonly changes: readonly ProposedChange[];
}

/**
 * A path normalised once: `path` as the working set names it (project-relative POSIX inside the project, absolute
 * outside), `absolute` to read.
 */
export interface PlacedPath {
  readonly path: string;
  readonly absolute: string;
}

/** A change to a file, its paths placed; `written` is its path as the call wrote it (the log names it so). */
export type PlacedFileChange =
  | { readonly kind: "write"; readonly written: string; readonly file: PlacedPath; readonly content: string }
  | {
      readonly kind: "edit";
      readonly written: string;
      readonly file: PlacedPath;
      readonly readFrom?: PlacedPath;
      readonly replacements: readonly Replacement[];
      readonly added: readonly AddedLine[];
    };

export type PlacedChange = PlacedFileChange | Extract<ProposedChange, { kind: "command" }>;

/** A tool call with its paths placed, as it travels from before it runs to its result. */
export interface PlacedCall {
  readonly tool: string;
  readonly callID?: string;
  /** The files it names, as the working set names them. */
  readonly files: readonly string[];
  readonly changes: readonly PlacedChange[];
}
