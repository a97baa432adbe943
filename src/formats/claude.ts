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
import { join } from "node:path";
import { addFolder, emptyFound } from "../discover/found-rules.js";
import { prefetch } from "../discover/probe.js";
import { projectLevels } from "../discover/project.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";
import { MARKDOWN, pathsType, readPathsOnly } from "./mapping.js";

const RULES = ".claude/rules";

export const claudeSource: RuleSource = {
  id: "claude",
  layout: { folders: [RULES], files: [] },
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const levels = projectLevels(context);
    prefetch(
      context.fs,
      [context.home, ...levels].map((base) => join(base, RULES)),
    );
    await addFolder(found, context, { folder: join(context.home, RULES), scope: "global", source: "claude", accept: MARKDOWN });
    for (const level of levels) {
      await addFolder(found, context, { folder: join(level, RULES), scope: "project", source: "claude", accept: MARKDOWN });
    }
    return found;
  },
  // CLAUDE.md's imports: an `@path` reference.
  references: ["at-line"],
  mapFrontMatter: (data, _file, warn, front) => readPathsOnly(data, "Claude Code", warn, front),
  typeOf: (data) => pathsType(data),
};
