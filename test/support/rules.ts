/** Rule objects for tests (temporary folders: temp-folder.ts). */
import { DEFAULT_PRIORITY, type Rule } from "../../src/rule/rule.js";
import type { RuleCandidate } from "../../src/rule/parse.js";

export function makeRule(overrides: Partial<Rule> = {}): Rule {
  const name = overrides.name ?? "rule";
  return {
    name,
    scope: "project",
    source: "native",
    path: `/project/.opencode/rules/${name}.md`,
    displayPath: `.opencode/rules/${name}.md`,
    content: `Content of ${name}.`,
    globs: [],
    keywords: [],
    match: "any",
    priority: DEFAULT_PRIORITY,
    override: false,
    unknownKeys: [],
    ...overrides,
  };
}

export function candidate(name = "my-rule", path = `/project/.opencode/rules/${name}.md`): RuleCandidate {
  return { name, scope: "project", source: "native", path, displayPath: `.opencode/rules/${name}.md` };
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
