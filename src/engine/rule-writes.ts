/**
 * What a call's writes of rule files would do to the rules that forbid: each
 * file's new text is read as discovery will read it after the write (its
 * source's parser, its name, scope and trust), precedence is worked out again,
 * and the rules whose forbids held before are compared with those after
 * (`enforce/weakened.ts`). A rule file the call creates in the project's own
 * rules folder is read as a native rule. Pure.
 */
import { MARKDOWN_OR_MDC } from "../discover/found-rules.js";
import { relative, sep } from "node:path";
import { inside } from "../rule/trust.js";
import { parseFile } from "../discover/parse-file.js";
import type { FoundRuleFile } from "../discover/source.js";
import { type WeakenedRule, weakenedRules } from "../enforce/weakened.js";
import { enforcingRules, type LoadedRules, resolvePrecedence } from "../formats/load.js";
import { ALL_SOURCES } from "../formats/sources.js";
import type { RuleFileWrite } from "../enforce/checked-changes.js";
import type { Rule } from "../rule/rule.js";

export interface RuleWritePlace {
  readonly projectRoot: string;
  /** Project levels from the root down (`discover/locations.ts` foldersFromRoot): precedence ranks a nearer level first. */
  readonly levels: readonly string[];
  /** The project's own rules folders, one per level (`projectRulesDirs`): a new file there is a new rule. */
  readonly nativeFolders: readonly string[];
  /** A longer file is skipped by discovery: after the write the rule is gone. */
  readonly maxRuleBytes: number;
}

/** The enforcing rules the writes would weaken; none when no rule forbids anything or no write could be read. */
export function weakenedByWrites(
  writes: readonly RuleFileWrite[],
  loaded: LoadedRules,
  place: RuleWritePlace,
): WeakenedRule[] {
  const readable = writes.filter((write): write is Required<RuleFileWrite> => write.after !== undefined);
  if (readable.length === 0) return [];
  const before = enforcingRules(loaded);
  if (!before.some((rule) => rule.enforce)) return [];
  const every = new Map<string, Rule>(
    [...loaded.rules, ...loaded.shadowed.map(({ rule }) => rule)].map((rule) => [rule.path, rule]),
  );
  for (const write of readable) {
    const file = loaded.files.find((found) => found.path === write.path) ?? newNativeFile(write.path, place);
    if (!file) continue;
    const rule = ruleFrom(file, write.after, place.maxRuleBytes);
    if (rule) every.set(write.path, rule);
    else every.delete(write.path);
  }
  const everyAfter = [...every.values()];
  const after = enforcingRules(resolvePrecedence(everyAfter, place.levels));
  return weakenedRules(before, after, everyAfter);
}

/** The file as discovery would find it in a `.opencode/rules/` of the project (at any level from the root to the directory, the nearest holding it); undefined for any other path. */
function newNativeFile(path: string, place: RuleWritePlace): FoundRuleFile | undefined {
  const folder = place.nativeFolders.findLast((native) => inside(path, [native]) && path !== native);
  if (folder === undefined || !MARKDOWN_OR_MDC(path)) return undefined;
  const relPath = relative(folder, path).split(sep).join("/");
  return {
    name: relPath.replace(/\.(md|mdc)$/i, ""),
    scope: "project",
    source: "native",
    path,
    displayPath: relative(place.projectRoot, path).split(sep).join("/"),
    relPath,
    size: 0,
    trust: "repository",
  };
}

function ruleFrom(file: FoundRuleFile, text: string, maxRuleBytes: number): Rule | undefined {
  const source = ALL_SOURCES.find((known) => known.id === file.source);
  const bytes = Buffer.from(text, "utf8");
  if (!source || bytes.length > maxRuleBytes) return undefined;
  return parseFile(file, source, bytes).rule;
}
