/** Rule objects for tests (temporary folders: temp-folder.ts). */
import { KINDS, type ConditionKey, type RuleConditions } from "../../src/conditions/list.js";
import type { RuleCandidate } from "../../src/rule/parse.js";
import { DEFAULT_PRIORITY, type Rule } from "../../src/rule/rule.js";

/**
 * A rule's fields, and its conditions written as front matter keys
 * (`globs`, `keywords`, `fileContains`, `agents`…): each kind reads them as
 * it reads a rule file's, so a test's rule is one a file could give. Given
 * `conditions`, they are taken as they are, over what the keys give.
 */
export type RuleOverrides = Partial<Rule> & { readonly [K in ConditionKey]?: string | readonly string[] };

export function makeRule(overrides: RuleOverrides = {}): Rule {
  const name = overrides.name ?? "rule";
  const fields: Record<string, unknown> = {};
  const frontMatter: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (KINDS.some((kind) => kind.keys.includes(key))) frontMatter[key] = value;
    else fields[key] = value;
  }
  return {
    name,
    scope: "project",
    source: "native",
    path: `/project/.opencode/rules/${name}.md`,
    displayPath: `.opencode/rules/${name}.md`,
    content: `Content of ${name}.`,
    match: "any",
    priority: DEFAULT_PRIORITY,
    override: false,
    unknownKeys: [],
    ...fields,
    conditions: { ...conditionsOf(frontMatter), ...overrides.conditions },
  };
}

/** The conditions the keys give; a key its kind cannot read fails the test that wrote it. */
function conditionsOf(frontMatter: Record<string, unknown>): RuleConditions {
  const conditions: Record<string, unknown> = {};
  for (const kind of KINDS) {
    if (!kind.keys.some((key) => key in frontMatter)) continue;
    const read = kind.read(frontMatter);
    const problems = read.problems.filter((problem) => problem.code !== "lost-if-none" || read.value === undefined);
    if (problems.length > 0) throw new Error(`makeRule: ${JSON.stringify(problems)}`);
    if (read.value !== undefined) conditions[kind.kind] = read.value;
  }
  return conditions as RuleConditions;
}

export function candidate(name = "my-rule", path = `/project/.opencode/rules/${name}.md`): RuleCandidate {
  return { name, scope: "project", source: "native", path, displayPath: `.opencode/rules/${name}.md` };
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
