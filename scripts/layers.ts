/**
 * The layers of `src/`, bottom to top: the one table `npm run lint` checks
 * imports against (scripts/check-structure.ts).
 *
 * Each row is a floor. A module may import from its own floor or any floor
 * below it, never from a floor above. The order follows the pipeline a rule
 * goes through: the log first (everything may log); glob matching; the
 * kinds of condition a rule applies by (conditions/list.ts); what a
 * rule is; where rule files come from (formats/ and discover/ share a floor:
 * they may import each other, the cycle check keeps that one-way); which
 * rules apply; how they are rendered; the options and OpenCode's config
 * (their defaults are discovery's and rendering's); what each session holds; the engine that drives it; the Rules panel;
 * the hosts (the shared OpenCode code below each generation's adapter); the
 * command; and the two entries on top.
 *
 * Paths are relative to `src/`. An entry ending in `/` is a folder and
 * everything under it; one ending in `/*` is the files directly in a folder
 * (not its subfolders); any other entry is one file. Where two entries match a
 * file, the longer one decides. A file that no entry matches fails the check
 * (a new folder, also one inside hosts/, is placed in this table before it
 * holds code).
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["log.ts"], // imports nothing of the project
  ["log-file.ts"], // the log only
  ["glob/", "pattern/"], // matchers: file globs, forbidden text
  ["conditions/"], // when a rule applies, one kind a file: its front matter keys, when it holds, its words
  ["rule/"],
  ["formats/", "discover/", "packs/"], // packs/: rules shared by a team (npm, Git, a folder), read like a rules folder
  ["select/"],
  ["enforce/"], // which rules a tool call breaks
  ["render/"],
  ["options.ts", "opencode-config.ts", "plugin-spec.ts", "pack-config.ts"], // their defaults come from discovery and rendering
  ["session/"],
  ["record/"], // what the rules did: the record's lines, its file, what `stats` makes of it
  ["engine/"],
  ["panel/"],
  ["hosts/opencode/", "hosts/*"], // what both OpenCode adapters share
  ["hosts/opencode-1/", "hosts/opencode-2/"],
  ["cli/"],
  ["index.ts", "tui.ts"],
];

/** Entries on one floor that must not import each other all the same. */
export const APART: readonly (readonly [string, string])[] = [["hosts/opencode-1/", "hosts/opencode-2/"]];

/** The longest line count a file in `src/` may have. */
export const MAX_LINES = 250;

/** The longest line count a file in `test/` may have (test/fixtures holds users' rule files, not code). */
export const MAX_TEST_LINES = 400;
