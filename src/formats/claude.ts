/**
 * Claude Code: `.claude/rules/**\/*.md` at every project level (root down to
 * the directory) and `~/.claude/rules` (global). `paths` (a glob or a list)
 * limits a rule to matching files; without it the rule is always on. Claude
 * Code reads no other key (https://code.claude.com/docs/en/memory, "Organize
 * rules with .claude/rules"): a rule scoped with Cursor's `globs` or
 * Copilot's `applyTo` is always on there, so here too, with a warning. The
 * common reader takes `paths` as globs. CLAUDE.md is not read: OpenCode
 * loads it itself.
 */
import { findHomeAndLevelFolders } from "../discover/found-rules.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";
import { MARKDOWN, pathsType, readPathsOnly } from "./mapping.js";

const RULES = ".claude/rules";

export const claudeSource: RuleSource = {
  id: "claude",
  tool: "Claude Code",
  layout: { folders: [RULES], files: [] },
  find: (context: SourceContext): Promise<FoundRules> =>
    findHomeAndLevelFolders(context, RULES, { source: "claude", accept: MARKDOWN }),
  // CLAUDE.md's imports: an `@path` reference.
  references: ["at-line"],
  mapFrontMatter: (data, _file, warn, front) => readPathsOnly(data, "Claude Code", warn, front),
  // Claude Code still reads a rule whose front matter does not parse: it loads, applying only when mentioned, with a warning.
  frontMatter: () => "lenient",
  typeOf: (data) => pathsType(data),
};
