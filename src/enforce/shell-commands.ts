/**
 * A shell command as the shell reads it: the texts `forbidCommands` patterns
 * are matched against. Pure.
 *
 * First the whole command, its line continuations joined as POSIX sh joins
 * them (shell-reading.ts); then, when joining changed it, the command as
 * written, so a pattern that matched it before still does. Then each simple
 * command of its lists and pipelines, also inside substitutions, subshells
 * and groups, without a leading keyword (`if`, `do`, `!`, `{`, …). Then each
 * line of a heredoc's body: a heredoc often feeds a shell (`bash <<EOF`,
 * `ssh host <<EOF`), whose lines are commands, and what it writes to a file
 * is in the whole text anyway, so its lines add matches only for anchored
 * patterns (`/^git push/`). Units are trimmed; empty and repeated ones
 * dropped.
 *
 * Commands are untrusted model output: one linear pass that never throws; at
 * most MAX_UNITS units, together at most MAX_SCANNED times as long as the
 * command, so scanning them costs at most that many times scanning it (past
 * either bound, the rest is matched only as part of the whole).
 */
import { read } from "./shell-reading.js";

/** The most units one command gives. */
export const MAX_UNITS = 256;
/**
 * All units of a command hold at most this many times its characters: the whole, as written, and at
 * most twice it in parts.
 */
export const MAX_SCANNED = 4;

/** Words that open or close a compound command: a unit starting with one is matched without it. */
const KEYWORDS = new Set([
  "!",
  "{",
  "}",
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "time",
  "esac",
]);

/** The texts `forbidCommands` patterns are matched against for `command`: the joined whole first. */
export function commandUnits(command: string): string[] {
  const reading = read(command);
  const joined = reading.pieces.join("");
  // The command as written is the same text unless a continuation was joined.
  const units = new Set([joined.trim(), command.trim()]);
  units.delete("");
  let room = (MAX_SCANNED - 2) * command.length;
  for (const [from, to] of [...reading.commands, ...reading.lines]) {
    if (units.size >= MAX_UNITS) break;
    if (to - from > room) continue;
    const unit = bare(joined.slice(from, to));
    if (unit === "" || units.has(unit)) continue;
    units.add(unit);
    room -= unit.length;
  }
  return [...units];
}

/** The unit without a leading keyword (`if git push -f` → `git push -f`, `}` → nothing). */
function bare(unit: string): string {
  let rest = unit.trim();
  for (;;) {
    const space = rest.search(/\s/);
    if (!KEYWORDS.has(space < 0 ? rest : rest.slice(0, space))) return rest;
    rest = space < 0 ? "" : rest.slice(space).trimStart();
  }
}
