/**
 * File globs as rule authors mean them: relative to the project root, POSIX
 * separators, brace expansion, dot files included, and a pattern without a
 * slash (`*.ts`) matching at any depth, as Cursor and Claude Code read it.
 *
 * Globs come from untrusted rule files: matching goes through compile.ts,
 * whose cost is bounded whatever the pattern, and a glob that cannot be used
 * never matches and never throws.
 */
import { compileGlob, MAX_GLOB_LENGTH } from "./compile.js";
import { fixedPart, type FixedPart } from "./fixed-part.js";
import type { StepCounter } from "./pattern.js";

interface RuleGlob {
  /** Why the glob cannot be used; such a glob matches nothing. */
  problem?: string;
  /** Whether `file` (project-relative, or absolute outside the project) matches. */
  match(file: string, counter?: StepCounter): boolean;
  /**
   * What a file it matches has, one part per alternative (`src/app` of
   * `src/app/**`, `ts` of `*.ts`): a file with none of them never matches;
   * `any` when some alternative fixes nothing. Empty for a glob that matches nothing.
   */
  fixed: readonly FixedPart[] | "any";
}

/** Compiled globs by text; cleared when it grows past this, so hostile rules cannot grow it without end. */
const MAX_CACHED = 10_000;
const compiled = new Map<string, RuleGlob>();

export function ruleGlob(glob: string): RuleGlob {
  let found = compiled.get(glob);
  if (!found) {
    if (compiled.size >= MAX_CACHED) compiled.clear();
    found = compileRuleGlob(glob);
    compiled.set(glob, found);
  }
  return found;
}

/** Why `glob` cannot be used, worded for the rule's author; undefined when it can. */
export function globProblem(glob: string): string | undefined {
  return ruleGlob(glob).problem;
}

/**
 * The first glob that matches `file`, or undefined. A file outside the
 * project is kept absolute and only an absolute glob can match it: a project
 * rule for `**\/*.ts` says nothing about `/etc/x.ts`.
 */
export function matchingGlob(file: string, globs: readonly string[]): string | undefined {
  return globs.find((glob) => ruleGlob(glob).match(file));
}

/** Why a usable glob can never match a file inside the project. */
export type OutsideProject = "absolute" | "home" | "parent" | "folder-only" | "backslash";

/**
 * Why `glob` can never match a path inside the project, whatever its files:
 * project files are matched by their path relative to the root, with `/`
 * between parts, and never end in `/`. Undefined when it may match.
 */
export function neverMatchesInProject(glob: string): OutsideProject | undefined {
  if (glob.startsWith("!")) return undefined; // A negation only narrows the rule's other globs.
  const body = glob.replace(/^(\.\/)+/, "");
  if (body.startsWith("/") || /^[A-Za-z]:[\\/]/.test(body)) return "absolute";
  if (body === "~" || body.startsWith("~/")) return "home";
  if (body === ".." || body.startsWith("../")) return "parent";
  if (body.length > 1 && body.endsWith("/")) return "folder-only";
  // `\[id\]` escapes a bracket; `src\**\*.ts` is a Windows path (a letter needs no escape, and no real file name holds
  // a `*`).
  if (!body.includes("/") && /\\[\w.*-]/.test(body)) return "backslash";
  return undefined;
}

const NEVER = () => false;

function compileRuleGlob(glob: string): RuleGlob {
  if (glob.length > MAX_GLOB_LENGTH)
    return { problem: `it is longer than ${MAX_GLOB_LENGTH} characters`, match: NEVER, fixed: [] };
  // Leading `!`s negate (as micromatch reads them), except `!(…)`, which is an extglob.
  let negated = false;
  let body = glob;
  while (body.startsWith("!") && !body.startsWith("!(")) {
    negated = !negated;
    body = body.slice(1);
  }
  // `./x` is anchored at the project root; a pattern with no slash at all matches at any depth.
  const anyDepth = !body.includes("/");
  const absolute = body.startsWith("/");
  const hadDotSlash = body.startsWith("./");
  while (body.startsWith("./")) body = body.slice(2);
  const empty = emptyProblem(body, hadDotSlash);
  if (empty) return { problem: empty, match: NEVER, fixed: [] };
  // micromatch reads `*.*` and `**/*.*` as "a name with a dot and something after it" (its fast path).
  if (body === "*.*" || body === "**/*.*") body = `${body.slice(0, -1)}?*`;
  const pattern = compileGlob(body, { anyDepth });
  if (!pattern.ok) return { problem: pattern.problem, match: NEVER, fixed: [] };
  let fixed: RuleGlob["fixed"] | undefined;
  return {
    match: (file, counter) => file.startsWith("/") === absolute && pattern.match(file, counter) !== negated,
    // Worked out when first asked for (by an index of globs), not for every glob parsed. A negated glob fixes nothing.
    get fixed() {
      if (fixed === undefined) {
        const parts = pattern.patterns.map(fixedPart);
        fixed = negated || parts.includes(undefined) ? "any" : (parts as FixedPart[]);
      }
      return fixed;
    },
  };
}

function emptyProblem(body: string, hadDotSlash: boolean): string | undefined {
  if (body === "") return hadDotSlash ? 'nothing is left once "./" is removed' : "it is empty";
  if (/^\/+$/.test(body)) return "it is only slashes and names no file";
  return undefined;
}
