/**
 * A hypothetical session for `explain` and `render`: the files it touches,
 * the prompt it receives and the agent and model it works as, turned into
 * the engine's SelectionContext the way the engine does it for a real prompt
 * (`@rule` mentions, paths named in the prompt that exist).
 */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { ContentMatch } from "../conditions/content.js";
import { readList } from "../conditions/front-matter-list.js";
import type { Rule } from "../rule/rule.js";
import type { SelectionContext } from "../select/active.js";
import { contentHits, hasContentRules, MAX_CONTENT_CHARS } from "../select/content.js";
import type { SessionFacts } from "../conditions/list.js";
import { mentionedRuleNames } from "../select/mentions.js";
import { normalisePath, pathsNamedInPrompt } from "../session/paths.js";
import type { ProjectContext } from "./context.js";
import { readStart } from "./read-start.js";

interface Hypothesis {
  /** Project-relative POSIX paths (absolute outside the project), in the order given, without repeats. */
  files: string[];
  prompt?: string;
  mentioned: string[];
  /**
   * `--agent` and `--model`; without them, rules for some agents or models do not apply, as in a session whose agent is
   * not known yet.
   */
  workingAs: SessionFacts;
  context: SelectionContext;
}

export function hypotheticalSession(
  project: ProjectContext,
  rules: readonly Rule[],
  files: readonly string[],
  prompt?: string,
  workingAs: SessionFacts = {},
): Hypothesis {
  const normalised = new Set(
    files.map((file) =>
      normalisePath(file.replace(/^~\//, `${project.home}/`), project.directory, project.projectRoot),
    ),
  );
  const ruleNames = new Set(rules.map((rule) => rule.name));
  const mentioned = prompt ? mentionedRuleNames(prompt, ruleNames) : [];
  // As the engine does for a user's message: existing files the prompt names join the session.
  for (const { path, absolute } of prompt ? pathsNamedInPrompt(prompt, ruleNames, project) : [])
    if (existsSync(absolute)) normalised.add(path);
  const list = [...normalised];
  const contentMatches = contentOfFiles(project, rules, list);
  return {
    files: list,
    prompt,
    mentioned,
    workingAs,
    context: { files: list, prompt, mentioned: new Set(mentioned), facts: workingAs, contentMatches },
  };
}

/**
 * What the files given hold, for rules with content conditions: each file
 * that exists is read (its first MAX_CONTENT_CHARS bytes), as if a tool had
 * brought it into the session.
 */
function contentOfFiles(
  project: ProjectContext,
  rules: readonly Rule[],
  files: readonly string[],
): Map<string, ContentMatch> {
  if (!hasContentRules(rules)) return new Map();
  const texts = files.flatMap((file) => {
    const text = readStart(isAbsolute(file) ? file : join(project.projectRoot, file), MAX_CONTENT_CHARS);
    return text === undefined ? [] : [{ file, text }];
  });
  const scan = contentHits(rules, texts, new Set(), {
    now: () => performance.now(),
    deadline: performance.now() + CONTENT_SCAN_MS,
  });
  return new Map(scan.hits.map(({ rule, match }) => [rule, match]));
}

/** A command has time a tool result does not: the files given are all looked at. */
const CONTENT_SCAN_MS = 10_000;

/**
 * Repeated or comma-separated list flags (`--files a,b --files c`), read like a rule's globs: commas inside `{a,b}`
 * stay.
 */
export function listFlag(values: readonly string[] | undefined): string[] {
  return readList([...(values ?? [])]) ?? [];
}
