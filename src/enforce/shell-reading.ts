/**
 * Reading a shell command as the shell reads it, for shell-commands.ts: one
 * linear pass that never throws (commands are untrusted model output) and
 * finds where its simple commands and its heredocs' lines are.
 *
 * Line continuations are joined as POSIX sh joins them (a backslash before a
 * newline is removed, but not inside single quotes, a comment or a quoted
 * heredoc). Simple commands are the parts of its lists and pipelines (split
 * on `;`, `&`, `|`, `&&`, `||`, newlines and a case's `)`, not inside quotes
 * nor after a backslash), also inside `$(…)`, `<(…)`, backticks, `( … )` and
 * `{ …; }`. A heredoc's body is read line by line, not split further: its
 * quotes are mere text when it feeds a file.
 */

/**
 * Where the reading is: a list (the command, a subshell, a substitution) or inside double quotes (no
 * split, but substitutions).
 */
interface Frame {
  readonly kind: "list" | "paren" | "backtick" | "dquote";
  /** Where the unit being read started (in the joined text). */
  start: number;
}

interface Heredoc {
  readonly word: string;
  /** `<<-`: leading tabs are taken off a line before it is compared with the word. */
  readonly strip: boolean;
  /** A quoted word (`'EOF'`, `"EOF"`, `\EOF`): the body is read as is, continuations kept. */
  readonly quoted: boolean;
}

/** The reading of one command: the joined text, and where its units are in it. */
interface Reading {
  readonly raw: string;
  /** The position in `raw`; never past its end. */
  i: number;
  /** Characters of continuations removed before `i`: the joined text's position is `i - removed`. */
  removed: number;
  /** `raw` up to here is in `pieces`. */
  copied: number;
  readonly pieces: string[];
  /**
   * Ranges in the joined text of the simple commands, and of heredoc lines: taken after the commands,
   * so a long heredoc cannot crowd them out of MAX_UNITS (shell-commands.ts).
   */
  readonly commands: Array<[number, number]>;
  readonly lines: Array<[number, number]>;
  readonly stack: Frame[];
  readonly pending: Heredoc[];
}

/** Characters that end a word: a `#` after one (or at the start) opens a comment; they end a heredoc's word. */
const BLANK_OR_OPERATOR = new Set([" ", "\t", "\n", "\r", ";", "&", "|", "(", ")", "<", ">"]);

/** Reads `raw` through: `pieces` joined is its text with continuations joined. */
export function read(raw: string): Reading {
  const reading: Reading = {
    raw,
    i: 0,
    removed: 0,
    copied: 0,
    pieces: [],
    commands: [],
    lines: [],
    stack: [{ kind: "list", start: 0 }],
    pending: [],
  };
  while (reading.i < raw.length) step(reading);
  reading.pieces.push(raw.slice(reading.copied));
  for (const frame of reading.stack) endUnit(reading, frame);
  return reading;
}

const at = (reading: Reading) => reading.i - reading.removed;

/** The length of a line continuation at `i` (`\⏎` 2, `\␍⏎` 3), or 0. */
function continuation(raw: string, i: number): number {
  if (raw[i] !== "\\") return 0;
  if (raw[i + 1] === "\n") return 2;
  return raw[i + 1] === "\r" && raw[i + 2] === "\n" ? 3 : 0;
}

/** Drops the continuation at `i` from the joined text. */
function join(reading: Reading, length: number): void {
  reading.pieces.push(reading.raw.slice(reading.copied, reading.i));
  reading.i += length;
  reading.copied = reading.i;
  reading.removed += length;
}

/** A backslash: a continuation joined, or the next character escaped (skipped). */
function backslash(reading: Reading): void {
  const length = continuation(reading.raw, reading.i);
  if (length > 0) join(reading, length);
  else reading.i = Math.min(reading.i + 2, reading.raw.length);
}

/** The unit `frame` was reading ends here (before the character at `i`). */
function endUnit(reading: Reading, frame: Frame): void {
  if (frame.kind !== "dquote") reading.commands.push([frame.start, at(reading)]);
}

/** Opens a frame whose text starts after the `width` characters at `i`. */
function open(reading: Reading, kind: Frame["kind"], width: number): void {
  reading.stack.push({ kind, start: at(reading) + width });
  reading.i += width;
}

/** Ends the current unit at the separator at `i`; the next starts after it. */
function separate(reading: Reading, frame: Frame): void {
  endUnit(reading, frame);
  reading.i++;
  frame.start = at(reading);
}

/** Reads one character, or one quoted string, comment or heredoc word. */
function step(reading: Reading): void {
  const { raw, i, stack } = reading;
  const top = stack[stack.length - 1]!;
  const char = raw[i]!;
  if (char === "\\") backslash(reading);
  else if (top.kind === "dquote") {
    if (char === "`" || (char === "$" && raw[i + 1] === "("))
      open(reading, char === "`" ? "backtick" : "paren", char === "`" ? 1 : 2);
    else {
      if (char === '"') stack.pop();
      reading.i++;
    }
  } else if (char === "'") {
    const end = raw.indexOf("'", i + 1);
    reading.i = end < 0 ? raw.length : end + 1;
  } else if (char === '"' || char === "(" || (char === "`" && top.kind !== "backtick"))
    open(reading, char === '"' ? "dquote" : char === "(" ? "paren" : "backtick", 1);
  else if (char === "`" || (char === ")" && top.kind === "paren")) {
    endUnit(reading, top);
    stack.pop();
    reading.i++;
  } else if (separates(raw, i)) {
    separate(reading, top);
    if (char === "\n" && reading.pending.length > 0) {
      for (const heredoc of reading.pending.splice(0)) body(reading, heredoc);
      top.start = at(reading);
    }
  } else if (char === "#" && (i === 0 || BLANK_OR_OPERATOR.has(raw[i - 1]!))) {
    const end = raw.indexOf("\n", i);
    reading.i = end < 0 ? raw.length : end;
  } else if (char === "$" && raw[i + 1] === "'") ansiQuote(reading);
  else if (char === "<" && raw[i + 1] === "<") heredocWord(reading);
  else reading.i++;
}

/**
 * A separator of simple commands, outside quotes: `>&2`, `<&0`, `&>file`, `>|file` are redirections,
 * not separators; an unmatched `)` ends a case pattern.
 */
function separates(raw: string, i: number): boolean {
  const char = raw[i];
  if (char === "&") return raw[i - 1] !== ">" && raw[i - 1] !== "<" && raw[i + 1] !== ">";
  if (char === "|") return raw[i - 1] !== ">";
  return char === ";" || char === "\n" || char === ")";
}

/** `$'…'`: backslash escapes inside, so `$'it\'s'` is one string. */
function ansiQuote(reading: Reading): void {
  const { raw } = reading;
  let j = reading.i + 2;
  while (j < raw.length && raw[j] !== "'") j += raw[j] === "\\" ? 2 : 1;
  reading.i = Math.min(j + 1, raw.length);
}

/** `<<WORD`, `<<-WORD`, `<<'WORD'`: its body is read at the next newline. */
function heredocWord(reading: Reading): void {
  const { raw } = reading;
  if (raw[reading.i + 2] === "<") {
    reading.i += 3; // a here-string
    return;
  }
  let j = reading.i + 2;
  const strip = raw[j] === "-";
  if (strip) j++;
  while (raw[j] === " " || raw[j] === "\t") j++;
  let word = "";
  let quoted = false;
  while (j < raw.length && !BLANK_OR_OPERATOR.has(raw[j]!)) {
    const char = raw[j]!;
    quoted ||= char === "'" || char === '"' || char === "\\";
    if (char === "'" || char === '"') {
      const end = raw.indexOf(char, j + 1);
      word += raw.slice(j + 1, end < 0 ? raw.length : end);
      j = end < 0 ? raw.length : end + 1;
    } else {
      word += char === "\\" ? (raw[j + 1] ?? "") : char;
      j += char === "\\" ? 2 : 1;
    }
  }
  if (word !== "" || quoted) reading.pending.push({ word, strip, quoted });
  reading.i = Math.min(j, raw.length);
}

/** A heredoc's body, from `i` through the line that is its word (or the end): each line a unit. */
function body(reading: Reading, heredoc: Heredoc): void {
  const { raw } = reading;
  while (reading.i < raw.length) {
    const start = reading.i;
    const from = at(reading);
    let joined = false;
    while (reading.i < raw.length && raw[reading.i] !== "\n") {
      if (heredoc.quoted || raw[reading.i] !== "\\") reading.i++;
      else {
        joined ||= continuation(raw, reading.i) > 0;
        backslash(reading);
      }
    }
    let line = raw.slice(start, reading.i);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (heredoc.strip) line = line.replace(/^\t+/, "");
    const end = reading.i;
    reading.i = Math.min(reading.i + 1, raw.length);
    if (!joined && line === heredoc.word) return;
    reading.lines.push([from, end - reading.removed]);
  }
}
