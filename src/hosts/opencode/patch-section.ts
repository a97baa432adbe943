/**
 * What patch-text.ts reads a patch into, either dialect: the header lines
 * that name a file, and per file its section (its `+` and `-` lines and its
 * hunks), at most MAX_FILES_PER_PATCH of them.
 */

/** Files read from one patch: more is not a patch a model wrote, and would only cost time. */
export const MAX_FILES_PER_PATCH = 2_000;

type Header = { readonly kind: "add" | "update" | "delete" | "move" | "from" | "to"; readonly path: string };

const ENVELOPE_KINDS = { Add: "add", Update: "update", Delete: "delete" } as const;

/** The file one header line names: `*** Add|Update|Delete File: x`, `*** Move to: x`, `--- a/x`, `+++ b/x`. */
export function headerOf(line: string): Header | undefined {
  const envelope = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
  if (envelope) return { kind: ENVELOPE_KINDS[envelope[1] as keyof typeof ENVELOPE_KINDS], path: envelope[2]!.trim() };
  const move = /^\*\*\* Move to: (.+)$/.exec(line);
  if (move) return { kind: "move", path: move[1]!.trim() };
  const unified = /^(\+\+\+|---) (?:[ab]\/)?(.+)$/.exec(line);
  if (unified) return { kind: unified[1] === "+++" ? "to" : "from", path: unified[2]!.trim() };
  return undefined;
}

/** A hunk's lines: the old side (context and `-`), the new side (context and `+`). */
export interface HunkLines {
  readonly old: string[];
  readonly new: string[];
}

/**
 * One file's part of a patch: its `+` lines (numbered when the patch says where), its `-` lines, and
 * its hunks; `created` for a file whose `+` lines are its whole text (a new file; none for one
 * deleted).
 */
export interface Section {
  readonly path: string;
  readonly readFrom?: string;
  readonly created?: boolean;
  readonly plus: { text: string; line?: number }[];
  readonly minus: string[];
  readonly hunks: HunkLines[];
}

export const sectionFor = (path: string, more: Pick<Section, "readFrom" | "created"> = {}): Section => ({
  path,
  ...more,
  plus: [],
  minus: [],
  hunks: [],
});
