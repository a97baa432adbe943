/**
 * The English text of every warning code, and its severity: written here
 * and nowhere else (warnings.ts gives them out). Pure.
 */
import { packProblemText } from "./pack-problems.js";
import type { Details, Severity, Skips, WarningOfCode } from "./warning-codes.js";
import {
  BOUNDARY,
  INSTEAD,
  MENTIONED_ONLY,
  UNREAD,
  WALKED,
  nowAppliesText,
  orList,
  patternWords,
  scopeNoun,
  shown,
  someNames,
  wrongType,
} from "./warning-words.js";

type Entry<W> = { severity: Severity; text: (warning: W) => string };

/** Something was not loaded (a rule, a folder, a file). */
const error = <W>(text: (warning: W) => string): Entry<W> => ({ severity: "error", text });
/** A default was used instead, or nothing was lost. */
const warning = <W>(text: (warning: W) => string): Entry<W> => ({ severity: "warning", text });
/** A rule file that was skipped: an error, saying which rule. */
const skip = <W extends Skips>(text: (warning: W) => string): Entry<W> =>
  error((w: W) => `${text(w)}; rule "${w.rule}" skipped`);

/** Per code: its severity and its text. */
export const TEXTS: { [C in keyof Details]: Entry<WarningOfCode<C>> } = {
  "folder-unreadable": error((w) => `rules folder cannot be read (${w.reason}); its rules were not loaded`),
  "folder-unresolvable": error((w) => `rules folder cannot be resolved (${w.reason}); its rules were not loaded`),
  "folder-not-a-folder": error(() => "rules folder is not a folder; it was ignored"),
  "subfolder-unreadable": error((w) => `folder cannot be read (${w.reason}); its rules were not loaded`),
  "symlink-loop": warning(
    (w) => `symlink loop: this folder leads back to ${w.realPath}; the walk of this branch stopped here`,
  ),
  "folder-already-read": warning(
    (w) => `this folder is ${w.realPath}, already read through another path; not read again`,
  ),
  "folder-too-deep": error((w) => `folders nested deeper than ${w.maxDepth} levels; this branch was not read`),
  "walk-limit": error(
    (w) =>
      `more than ${w.limit} ${WALKED[w.what]} in this source's rule folders; the walk stopped here and the rest was not read`,
  ),
  "too-many-warnings": warning(
    (w) => `more than ${w.limit} problems in this source's rule folders; the others are not reported one by one`,
  ),
  "nested-search-limit": warning(
    (w) =>
      `more than ${w.maxFolders} folders below the project; nested rules folders (.cursor/rules, .windsurf/rules) past them were not searched`,
  ),
  "nested-folder-unreadable": warning(
    (w) => `folder cannot be read (${w.reason}); nested rules folders in it were not searched`,
  ),
  "path-unreadable": error((w) => `cannot be read (${w.reason}); skipped`),
  "path-unresolvable": error(() => "cannot be resolved; skipped"),
  "not-regular-file": error(() => "is not a regular file (a device, FIFO or socket); never opened, skipped"),
  "outside-repository": error(
    (w) =>
      `leads through a symlink to ${w.realPath}, outside the repository (${w.realRoot}); a repository's rule ${w.what}s are read only from inside it, so this ${w.what} was skipped`,
  ),
  "extra-dir-outside-repository": error(
    () =>
      "extraDirs names this folder outside the repository, and your own OpenCode config does not: a folder outside the repository is read only when your global opencode.json names it; skipped",
  ),
  "rule-too-large": error((w) =>
    w.size === undefined
      ? `the file is over the ${w.limit}-byte limit per rule; rule "${w.rule}" skipped`
      : `the file is ${w.size} bytes, over the ${w.limit}-byte limit per rule; rule "${w.rule}" skipped without being read`,
  ),
  "rule-unreadable": skip((w) => `cannot be read (${w.reason})`),
  "not-text": skip((w) => w.reason),
  "file-empty": skip(() => "the file is empty"),
  "front-matter-language": skip(
    (w) => `front matter is marked "${w.language}"; only YAML front matter is read, and nothing in it was run`,
  ),
  "front-matter-unclosed": skip(() => "front matter opened with --- on line 1 is never closed by a --- line"),
  "front-matter-stray-delimiter": skip(
    (w) => `front matter line ${w.strayLine} starts with "---" but is not a closing "---" line`,
  ),
  "front-matter-too-deep": skip(() => "front matter is nested too deeply to read"),
  "yaml-invalid": skip((w) => `front matter is not valid YAML (${w.reason})`),
  "front-matter-not-mapping": skip(() => "front matter is not a list of `key: value` pairs"),
  "no-rule-text": skip(() => "the file has front matter but no rule text"),
  "key-invalid": skip((w) => wrongType(w)),
  "front-matter-unread": warning(
    (w) =>
      `${UNREAD[w.problem]?.(w.reason) ?? "front matter cannot be read"}; none of its keys was read, so the rule applies only when mentioned ` +
      "(its tool still reads the file: fix the front matter to give the rule its mode)",
  ),
  "key-ignored": warning((w) => `${wrongType(w)}; ${INSTEAD[w.key]}`),
  "glob-unusable": warning(
    (w) =>
      `glob ${JSON.stringify(w.glob)} cannot be used (${w.problem}); this glob is ignored${w.nowApplies ? `; no usable glob is left, so the rule ${nowAppliesText(w.nowApplies)}` : ""}`,
  ),
  "content-condition-lost": error(
    (w) =>
      `no pattern of "${w.key}" can be used, so the ${patternWords(w.key).noun} condition was ignored and ${patternWords(w.key).nothing}${w.nowApplies ? `; it ${nowAppliesText(w.nowApplies)}` : ""}`,
  ),
  "unknown-keys": warning(
    (w) =>
      `front matter key${w.keys.length > 1 ? "s" : ""} ${w.keys.map((key) => `"${key}"`).join(", ")} ${w.keys.length > 1 ? "are" : "is"} not used by opencode-rulebook; kept and ignored`,
  ),
  "scope-empty": warning(
    (w) =>
      `front matter key "${w.key}" names no ${scopeNoun(w.key)}; the rule applies whatever the ${scopeNoun(w.key)} (name some, or remove the key)`,
  ),
  "activation-invalid": warning(
    (w) => `front matter key "${w.key}" should be ${orList(w.allowed)}, found ${w.value}; ${MENTIONED_ONLY}`,
  ),
  "activation-incomplete": warning(
    (w) =>
      `front matter says "${w.key}: ${w.value}" but ${w.lacks === "description" ? "has no description" : `gives no ${w.lacks}`}; ${MENTIONED_ONLY}`,
  ),
  "key-ignored-by-tool": warning(
    (w) =>
      `${w.tool} does not read front matter key "${w.key}"${w.reads === undefined ? "" : ` (it reads "${w.reads}")`}; ignored here too, as in ${w.tool}` +
      (w.alwaysOn ? `: the rule is always on (write "${w.reads}" to limit it to files)` : ""),
  ),
  "activation-missing": warning(
    (w) =>
      `${w.tool} applies a rule by its "${w.key}" (${orList(w.allowed)}) and this one has none; ${MENTIONED_ONLY}, as ${w.tool} does not apply it by itself`,
  ),
  "agent-unknown": warning(
    (w) =>
      `agent ${JSON.stringify(w.agent)} in "agents" is neither built into OpenCode nor defined in your or the project's OpenCode config (known agents: ${someNames(w.known)}); ` +
      "the rule applies to no session under that name",
  ),
  "forbid-invalid": error((w) =>
    w.item === undefined
      ? `front matter key "${w.key}" should be a pattern or a YAML list of patterns, found ${shown(w.found)}; it was ignored, so ${patternWords(w.key).ignored}`
      : `item ${w.item} of front matter key "${w.key}" should be a pattern, found ${shown(w.found)}; this item was ignored`,
  ),
  "forbid-pattern-unusable": error(
    (w) =>
      `${patternWords(w.key).noun} pattern ${JSON.stringify(w.pattern)} in "${w.key}" ${w.problem}; this pattern was ignored`,
  ),
  "forbid-too-many": error(
    (w) =>
      `front matter key "${w.key}" lists ${w.count} patterns, more than ${w.limit}; the first ${w.limit} are used, the other ${w.count - w.limit} were not loaded`,
  ),
  "enforce-invalid": warning(
    (w) => `front matter key "enforce" should be "block" or "warn", found ${shown(w.found)}; "block" used`,
  ),
  "enforce-without-forbid": warning(
    () =>
      'front matter key "enforce" is set but the rule has no usable "forbid" or "forbidCommands" pattern; nothing is enforced',
  ),
  "enforcement-ignored-by-tool": warning(
    (w) =>
      `front matter key "${w.key}" is read only in opencode-rulebook's own rules folders (.opencode/rules, the global rules folder, extraDirs); ` +
      `in a ${w.tool} rule it is ignored, so the rule forbids nothing (move it to .opencode/rules to enforce it)`,
  ),
  "reference-too-deep": warning(
    (w) => `reference ${w.reference} is nested more than ${w.maxDepth} levels deep; left as text`,
  ),
  "reference-outside": warning(
    (w) => `reference ${w.reference} points outside ${BOUNDARY[w.trust]} (${w.target}); refused; left as text`,
  ),
  "reference-missing": warning(
    (w) =>
      `reference ${w.reference} names a file that does not exist (${[w.target, ...(w.alsoTried ?? [])].join(" or ")}); left as text`,
  ),
  "reference-unreadable": warning((w) => `reference ${w.reference} cannot be read (${w.reason}); left as text`),
  "reference-leads-outside": warning(
    (w) => `reference ${w.reference} leads outside ${BOUNDARY[w.trust]} (to ${w.realPath}); refused; left as text`,
  ),
  "reference-cycle": warning((w) => `reference ${w.reference} is a cycle (${w.chain.join(" → ")}); left as text`),
  "reference-too-large": warning(
    (w) => `reference ${w.reference} would make the rule larger than ${w.maxBytes} bytes; left as text`,
  ),
  "reference-too-many": warning(
    (w) =>
      `reference ${w.reference} is past the first ${w.maxReferences} references of the rule; it and the ones after it are left as text`,
  ),
  "pack-not-delivered": error((w) => `pack ${w.pack} ${packProblemText(w.problem, w.owner)}`),
  "managed-not-trusted": error((w) => `${w.reason}: anyone could plant "managed" rules there, so it was not read`),
  "managed-beside": warning(
    (w) =>
      `has the name of the managed rule ${w.managed}, which nothing can shadow: both are delivered, this one as its own rule`,
  ),
  "config-invalid": warning((w) => `cannot be read as JSON (${w.reason}); its plugin options were not used`),
  "plugin-options": warning((w) => `plugin options: ${w.problem}`),
  "tui-options": warning(
    (w) =>
      `options ${w.keys.map((key) => `"${key}"`).join(", ")} are not read: the Rules panel takes none (give them in opencode.json)`,
  ),
};
