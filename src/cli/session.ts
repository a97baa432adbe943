/**
 * A hypothetical session for `explain` and `render`: the files it touches
 * and the prompt it receives, turned into the engine's SessionContext the
 * way the engine does it for a real prompt (`@rule` mentions, paths named in
 * the prompt that exist).
 */
import { existsSync } from "node:fs";
import type { Rule } from "../rule/rule.js";
import type { SessionContext } from "../select/active.js";
import { mentionedRuleNames } from "../select/mentions.js";
import { normalisePath, pathsNamedInPrompt } from "../session/working-set.js";
import { readList } from "../rule/parse.js";
import type { ProjectContext } from "./context.js";

export interface Hypothesis {
  /** Project-relative POSIX paths (absolute outside the project), in the order given, without repeats. */
  files: string[];
  prompt?: string;
  mentioned: string[];
  context: SessionContext;
}

export function hypotheticalSession(project: ProjectContext, rules: readonly Rule[], files: readonly string[], prompt?: string): Hypothesis {
  const normalised = new Set(files.map((file) => normalisePath(file.replace(/^~\//, `${project.home}/`), project.directory, project.projectRoot)));
  const ruleNames = new Set(rules.map((rule) => rule.name));
  const mentioned = prompt ? mentionedRuleNames(prompt, ruleNames) : [];
  // As the engine does for a user's message: existing files the prompt names join the session.
  for (const { path, absolute } of prompt ? pathsNamedInPrompt(prompt, ruleNames, project) : []) if (existsSync(absolute)) normalised.add(path);
  const list = [...normalised];
  return { files: list, prompt, mentioned, context: { files: list, prompt, mentioned: new Set(mentioned) } };
}

/** Repeated or comma-separated list flags (`--files a,b --files c`), read like a rule's globs: commas inside `{a,b}` stay. */
export function listFlag(values: readonly string[] | undefined): string[] {
  return readList([...(values ?? [])]) ?? [];
}
