/**
 * `globs` (aliases `paths`, `applyTo`, `fileMatchPattern`): the rule applies
 * when a file of the session's working set matches one. A glob that cannot be
 * used is left out; a rule left with none never applies more widely (fail
 * closed, rule/condition-warnings.ts). Pure.
 *
 * Files arrive one event at a time: `matchNewFiles` records, per rule, the
 * first new file one of its globs matches, trying only the rules whose globs
 * may match it (glob/index-by-part.ts), so an event's cost follows the new
 * files, not the working set or the number of rules.
 */
import { globIndex, type GlobIndex } from "../glob/index-by-part.js";
import { globProblem, matchingGlob } from "../glob/rule-glob.js";
import { valueIn, type ActivatingKind, type ConditionHolder, type ConditionProblem } from "./contract.js";
import { isNameList, readList } from "./front-matter-list.js";
import { perRuleSet } from "./per-rule-set.js";

export const GLOB_KEYS = ["globs", "paths", "applyTo", "fileMatchPattern"] as const;

/** A file of the session that one of the rule's globs matched. */
export interface FileMatch {
  kind: "file";
  /** Project-relative POSIX path (absolute outside the project). */
  file: string;
  glob: string;
}

/** What of the session files are matched against. */
type FilesSession = {
  /** Files in the session's context: project-relative POSIX (absolute outside the project); read more than once. */
  files: Iterable<string>;
  /**
   * Rules whose globs already matched a file of the session, with the file and the glob.
   * A caller that keeps this up to date as files arrive (`matchNewFiles`) passes
   * only the new files in `files`, so an event's cost does not grow with the working set.
   */
  fileMatches?: ReadonlyMap<string, FileMatch>;
};

export const files = {
  kind: "files",
  role: "activates",
  keys: GLOB_KEYS,
  expected: "a glob, a comma-separated list of globs, or a YAML list of globs",
  inOtherTools: true,
  bareValues: true,
  read(data) {
    const globs: string[] = [];
    const problems: ConditionProblem[] = [];
    for (const key of GLOB_KEYS) {
      const read = readList(data[key]);
      if (read === undefined) return { problems: [{ code: "unreadable", key }] };
      for (const glob of read) {
        const reason = globProblem(glob);
        if (reason === undefined) globs.push(glob);
        else problems.push({ code: "value-unusable", key, value: glob, reason });
      }
    }
    const last = problems[problems.length - 1];
    if (globs.length > 0) return { value: globs, problems };
    // Fail closed: the last unusable glob says what the rule applies by now that none is left.
    if (last?.code === "value-unusable") problems[problems.length - 1] = { ...last, lost: true };
    return { problems };
  },
  isValue: isNameList,
  json: (globs) => ({ globs: globs ?? [] }),
  metKind: "file",
  met: (globs, rule, session) => session.fileMatches?.get(rule) ?? matchFiles(globs, session.files),
  candidates(rules, session, placesOf, into) {
    for (const name of session.fileMatches?.keys() ?? []) for (const place of placesOf(name)) into.push(place);
    const places = new Set<number>();
    // Built at the first file: a session that knows no file yet (a first message) compiles no glob.
    let index: GlobIndex<number> | undefined;
    for (const file of session.files) {
      index ??= globsByPart(rules);
      index.collect(file, places);
    }
    // Globs that fix no part may match any file: tried when there is one.
    if (index) for (const place of [...index.everywhere, ...places]) into.push(place);
  },
  memo: (session) => session.fileMatches?.size,
  isStoredMet: (met) => typeof met.file === "string" && typeof met.glob === "string",
  words: {
    label: (globs) => `files: ${globs.join(", ")}`,
    missing: (globs) => `files: no file matched ${globs.join(", ")}`,
    met: (match) => `file ${match.file} matched ${match.glob}`,
    explain: (match) => `files: ${match.file} matched ${match.glob}`,
    panel: (match, shown) => `file ${shown(match.file)} matched ${shown(match.glob)}`,
  },
} as const satisfies ActivatingKind<"files", readonly string[], FileMatch, FilesSession>;

/** The rule's globs; none when it has no files condition. */
export const globsOf = (rule: ConditionHolder): readonly string[] => valueIn(rule, files.kind) ?? [];

/** Records, for each rule with globs not matched yet, the first of `newFiles` that matches it. */
export function matchNewFiles(
  rules: readonly ConditionHolder[],
  newFiles: readonly string[],
  fileMatches: Map<string, FileMatch>,
): void {
  if (newFiles.length === 0) return;
  // Only rules with a glob that may match one of the files: the others would find nothing.
  const index = globsByPart(rules);
  const places = new Set<number>(index.everywhere);
  for (const file of newFiles) index.collect(file, places);
  for (const place of [...places].sort((a, b) => a - b)) {
    const rule = rules[place] as ConditionHolder;
    if (fileMatches.has(rule.name)) continue;
    const match = matchFiles(globsOf(rule), newFiles);
    if (match) fileMatches.set(rule.name, match);
  }
}

/** The globs of every rule that has some, each rule filed with its place. */
const globsByPart = perRuleSet((rules): GlobIndex<number> => {
  const index = globIndex<number>();
  rules.forEach((rule, place) => {
    const globs = globsOf(rule);
    if (globs.length > 0) index.add(globs, place);
  });
  return index;
});

function matchFiles(globs: readonly string[], files: Iterable<string>): FileMatch | undefined {
  for (const file of files) {
    const glob = matchingGlob(file, globs);
    if (glob !== undefined) return { kind: "file", file, glob };
  }
  return undefined;
}
