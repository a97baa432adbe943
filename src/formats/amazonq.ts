/**
 * Amazon Q Developer
 * (https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/context-project-rules.html):
 * project rules are Markdown files in `.amazonq/rules` ("Amazon Q Developer
 * uses all the rules in the folder as context"), read here at every project
 * level, sub-folders included (`sub/name`). Every rule is always on: Amazon Q
 * documents no front matter and no user folder, so another tool's scoping key
 * (`globs`, `paths`, `applyTo`, `fileMatchPattern`, `alwaysApply`,
 * `description`) is ignored here too, with a warning. Amazon Q defines no file
 * reference syntax in rules.
 */
import { findLevelFolders } from "../discover/found-rules.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";
import { ignoredByTool, MARKDOWN } from "./mapping.js";

const RULES = ".amazonq/rules";
/** Keys other tools limit a rule with: Amazon Q reads none of them. */
const NOT_AMAZON_Q = ["globs", "paths", "applyTo", "fileMatchPattern", "alwaysApply", "description"];

export const amazonqSource: RuleSource = {
  id: "amazonq",
  tool: "Amazon Q Developer",
  layout: { folders: [RULES], files: [] },
  references: [],
  find: (context: SourceContext): Promise<FoundRules> =>
    findLevelFolders(context, RULES, { source: "amazonq", accept: MARKDOWN }),
  mapFrontMatter: (data, _file, warn, front) => ({
    ...ignoredByTool(
      data,
      NOT_AMAZON_Q,
      { tool: "Amazon Q Developer", reads: "the rule's text only", alwaysOn: false },
      warn,
      front,
    ),
    alwaysApply: true,
  }),
  typeOf: () => "always",
};
