/**
 * The lines a `git diff --unified=0` adds, file by file, numbered as in the
 * new version: what `verify --diff` checks. Pure: it reads the text git
 * printed (run with `--no-color --no-ext-diff --src-prefix=a/ --dst-prefix=b/`).
 *
 * A hunk's header says how many lines it removes and adds, and its body is
 * read by those counts: an added line that reads `+++ x` or `diff --git` is
 * still an added line.
 */
import type { AddedLine } from "../enforce/proposed.js";

interface DiffFile {
  /** As git names it in the new version, relative to where git ran, POSIX. */
  path: string;
  added: AddedLine[];
}

interface ParsedDiff {
  /** Files with added lines, in git's order. */
  files: DiffFile[];
  /** Files git called binary: no lines to check. */
  binary: string[];
  /** Files the change deletes: nothing to check, but a path named on the command line may be one. */
  deleted: string[];
}

/** `@@ -a[,b] +c[,d] @@`: b lines removed, d added from line c (a count left out is 1). */
const HUNK = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function addedInDiff(text: string): ParsedDiff {
  const files: DiffFile[] = [];
  const binary: string[] = [];
  const deleted: string[] = [];
  let file: { path?: string; deleted: boolean; binary: boolean; added: AddedLine[] } | undefined;
  let removing = 0;
  let adding = 0;
  let next = 0;
  const finish = () => {
    if (!file?.path) return;
    if (file.deleted) deleted.push(file.path);
    else if (file.binary) binary.push(file.path);
    else if (file.added.length > 0) files.push({ path: file.path, added: file.added });
  };
  for (const raw of text.split("\n")) {
    if (removing > 0 || adding > 0) {
      if (raw.startsWith("+") && adding > 0) {
        file?.added.push({ text: raw.slice(1).replace(/\r$/, ""), line: next++ });
        adding--;
      } else if (raw.startsWith("-") && removing > 0) removing--;
      // Anything else in a body (`\ No newline at end of file`) counts for neither side.
      continue;
    }
    if (raw.startsWith("diff --git ")) {
      finish();
      file = { path: pathOfGitLine(raw.slice("diff --git ".length)), deleted: false, binary: false, added: [] };
      continue;
    }
    if (!file) continue;
    const hunk = HUNK.exec(raw);
    if (hunk) {
      removing = hunk[1] === undefined ? 1 : Number(hunk[1]);
      next = Number(hunk[2]);
      adding = hunk[3] === undefined ? 1 : Number(hunk[3]);
    } else if (raw.startsWith("+++ ")) {
      // Git ends a name that holds a space with a tab, for patch tools.
      const target = unquoted(raw.slice(4).replace(/\t$/, ""));
      if (target === "/dev/null") file.deleted = true;
      else file.path = target.replace(/^b\//, "");
    } else if (raw.startsWith("rename to ") || raw.startsWith("copy to "))
      file.path = unquoted(raw.slice(raw.indexOf(" to ") + 4));
    else if (raw.startsWith("deleted file mode ")) file.deleted = true;
    else if (raw.startsWith("Binary files ") || raw === "GIT binary patch") file.binary = true;
  }
  finish();
  return { files, binary, deleted };
}

/**
 * The new path of `a/X b/Y` (quoted when git had to): needed only where no
 * `+++` line follows (a binary file, a change of mode). Unquoted names with
 * spaces are ambiguous; the two halves of an unchanged name are equal.
 */
function pathOfGitLine(rest: string): string | undefined {
  if (rest.endsWith('"')) {
    const start = lastQuoteStart(rest);
    return start === undefined ? undefined : unquoted(rest.slice(start)).replace(/^b\//, "");
  }
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(0, half).replace(/^a\//, "") === rest.slice(half + 1).replace(/^b\//, ""))
    return rest.slice(half + 1).replace(/^b\//, "");
  const at = rest.lastIndexOf(" b/");
  return at < 0 ? undefined : rest.slice(at + 3);
}

/** Where the quoted string that ends `text` begins: the last `"` not escaped, before the closing one. */
function lastQuoteStart(text: string): number | undefined {
  for (let i = text.length - 2; i >= 0; i--) {
    if (text[i] !== '"') continue;
    let slashes = 0;
    for (let j = i - 1; j >= 0 && text[j] === "\\"; j--) slashes++;
    if (slashes % 2 === 0) return i;
  }
  return undefined;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** A path as git prints it: as is, or C-quoted (`"tab\there"`, octal bytes `\303\251` for é). */
export function unquoted(text: string): string {
  if (!(text.startsWith('"') && text.endsWith('"') && text.length >= 2)) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const char = body[i] as string;
    if (char !== "\\") {
      bytes.push(...Buffer.from(char, "utf8"));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else {
      const escaped = body[i + 1] ?? "\\";
      bytes.push(ESCAPES[escaped] ?? escaped.charCodeAt(0));
      i++;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
