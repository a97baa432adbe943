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
import { normalisePath, pathCandidatesInPrompt } from "../session/working-set.js";
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
  if (prompt) {
    // As the engine does for a user's message: existing files the prompt names join the session.
    for (const candidate of pathCandidatesInPrompt(prompt)) {
      if (ruleNames.has(candidate)) continue;
      const path = normalisePath(candidate.replace(/^~\//, `${project.home}/`), project.directory, project.projectRoot);
      if (existsSync(path.startsWith("/") ? path : `${project.projectRoot}/${path}`)) normalised.add(path);
    }
  }
  const list = [...normalised];
  return { files: list, prompt, mentioned, context: { files: list, prompt, mentioned: new Set(mentioned) } };
}

/** Splits repeated or comma-separated list flags (`--files a,b --files c`); commas inside `{a,b}` stay. */
export function listFlag(values: readonly string[] | undefined): string[] {
  const items: string[] = [];
  for (const value of values ?? []) {
    let depth = 0;
    let current = "";
    for (const char of value) {
      if (char === "{") depth++;
      if (char === "}") depth = Math.max(0, depth - 1);
      if (char === "," && depth === 0) {
        items.push(current);
        current = "";
      } else current += char;
    }
    items.push(current);
  }
  return items.map((item) => item.trim()).filter((item) => item !== "");
}
