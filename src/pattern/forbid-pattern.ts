/**
 * A forbidden pattern as a rule writes it (`forbid`, `forbidCommands`): a
 * literal (`console.log(`) or a regular expression between slashes with
 * optional flags (`/:\s*any\b/i`). Patterns come from untrusted repositories:
 * each is compiled by a linear-time engine (RE2), never by JavaScript's
 * backtracking one. Pure.
 */
import { RE2JS, RE2JSSyntaxException } from "re2js";
import { roughSize } from "./rough-size.js";

/** At most this many patterns per key of one rule; the rest are ignored, with a warning. */
export const MAX_PATTERNS_PER_RULE = 50;
/** A longer pattern is ignored, with a warning. */
export const MAX_PATTERN_LENGTH = 500;
/**
 * A pattern compiling to more RE2 instructions is refused: what it costs to
 * scan a character grows with it. A 500-character literal compiles to about
 * 500; `a{1000}` to 1,002.
 */
export const MAX_PATTERN_SIZE = 1000;
/**
 * A pattern whose text promises more than this many instructions is refused without being compiled (compiling costs ~2
 * µs an instruction).
 */
const MAX_ROUGH_SIZE = 4 * MAX_PATTERN_SIZE;

export interface ForbidPattern {
  /** As written in the rule file. */
  readonly written: string;
  readonly kind: "literal" | "regex";
  /** The pattern in RE2 syntax, its flags inline (`(?i:…)`); a literal quoted. */
  readonly re2: string;
  /** Its compiled program's size (RE2 instructions): the most matching it costs per character. */
  readonly size: number;
}

/** The pattern, or why it cannot be used (a sentence fragment: "uses a lookahead, which …"). */
type ReadPattern = { pattern: ForbidPattern } | { problem: string };

/**
 * `/body/flags`: flags JavaScript has that mean something for one line of text (`u` is accepted and changes nothing).
 */
const REGEX = /^\/(.*)\/([imsu]*)$/s;

const LINEAR = (what: string) => `patterns are matched by a linear-time engine (RE2), which has no ${what}`;

/**
 * A pattern as written → RE2, or why not. `/…/` with flags from `imsu` is a
 * regular expression in JavaScript's syntax; anything else is a literal.
 */
export function readForbidPattern(written: string): ReadPattern {
  if (written.length > MAX_PATTERN_LENGTH)
    return { problem: `is ${written.length} characters long, more than ${MAX_PATTERN_LENGTH}` };
  const regex = REGEX.exec(written);
  if (!regex) {
    if (written === "") return { problem: "is empty" };
    return compiled(written, "literal", `(?:${RE2JS.quote(written)})`);
  }
  const [, body = "", flags = ""] = regex;
  if (body === "") return { problem: "is an empty regular expression, which matches everywhere" };
  const checked = checkJsSyntax(body);
  if ("problem" in checked) return checked;
  const inline = [...new Set(flags)]
    .filter((flag) => flag !== "u")
    .sort()
    .join("");
  return compiled(written, "regex", `(?${inline}:${RE2JS.translateRegExp(checked.body)})`);
}

function compiled(written: string, kind: ForbidPattern["kind"], re2: string): ReadPattern {
  const rough = roughSize(re2);
  if (rough > MAX_ROUGH_SIZE) return { problem: tooBig(rough, "about ") };
  let program: RE2JS;
  try {
    program = RE2JS.compile(re2);
  } catch (error) {
    return { problem: `is not a valid regular expression (${compileError(error, re2)})` };
  }
  const size = program.programSize();
  if (size > MAX_PATTERN_SIZE) return { problem: tooBig(size) };
  // A pattern that matches empty text is found in every line: a rule that forbids everything.
  if (program.test("")) return { problem: "matches empty text, so every line would break the rule" };
  return { pattern: { written, kind, re2, size } };
}

/**
 * RE2's reason, with the fragment it names unless that is the whole wrapped pattern (whose `(?:` the user never wrote).
 */
function compileError(error: unknown, re2: string): string {
  if (!(error instanceof RE2JSSyntaxException)) return error instanceof Error ? error.message : String(error);
  const input = error.input ?? "";
  if (input === "" || input === re2) return error.error;
  // A fragment running to the end ends with the wrapper's ")".
  return `${error.error}: \`${re2.endsWith(input) ? input.slice(0, -1) : input}\``;
}

const tooBig = (size: number, about = "") =>
  `compiles to ${about}${size.toLocaleString("en-US")} steps, more than ${MAX_PATTERN_SIZE.toLocaleString("en-US")}; write it simpler`;

/**
 * JavaScript syntax RE2 lacks, named plainly (RE2 would call a lookahead
 * "invalid or unsupported Perl syntax", and translation would read `\k<name>`
 * as the text `k<name>`); a `)` that closes no group (a wrapper around the
 * pattern would otherwise close it). Returns the body to translate: an
 * unclosed `\Q` quote (RE2 syntax) closed, so the body can be wrapped.
 */
function checkJsSyntax(body: string): { body: string } | { problem: string } {
  let inClass = false;
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === "\\") {
      const next = body[i + 1] ?? "";
      if (next === "Q") {
        const end = body.indexOf("\\E", i + 2);
        if (end < 0) return { body: `${body}\\E` };
        i = end + 1;
        continue;
      }
      if (!inClass && (/[1-9]/.test(next) || (next === "k" && body[i + 2] === "<"))) {
        return { problem: `uses a backreference "\\${next === "k" ? "k<…>" : next}": ${LINEAR("backreferences")}` };
      }
      i++;
    } else if (inClass) {
      if (char === "]") inClass = false;
    } else if (char === "[") inClass = true;
    else if (char === "(") {
      const look = /^\(\?(<?)[=!]/.exec(body.slice(i, i + 4));
      if (look)
        return { problem: `uses a ${look[1] ? "lookbehind" : "lookahead"} "${look[0]}…)": ${LINEAR("lookarounds")}` };
      depth++;
    } else if (char === ")" && --depth < 0) return { problem: 'has a ")" that closes no group' };
  }
  return { body };
}
