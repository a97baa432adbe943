/**
 * JetBrains AI Assistant
 * (https://www.jetbrains.com/help/ai-assistant/configure-project-rules.html):
 * project rules are `.aiassistant/rules/*.md` (read here at every project
 * level, top level only). The docs describe the rule type as chosen in the
 * IDE ("Settings | Tools | AI Assistant | Rules … select the Rule type"); the
 * IDE stores that choice in the file's own front matter, as the rule files
 * in public repositories show: `apply:` with the type, `instructions:` for a
 * model-decided rule and `patterns:` for a file-pattern rule. So:
 * - `always` → always; also when `apply` is absent ("By default, project
 *   rules are automatically added to each chat session");
 * - `manually` → only when mentioned (`@rule:` there, `@name` here);
 * - `by model decision` → on request, listed by its `instructions` ("You must
 *   also provide an Instruction"; without one: manual, with a warning);
 * - `by file patterns` → the `patterns` globs (comma-separated or a list;
 *   without them: manual, with a warning);
 * - `off` → "inactive and will not be applied": not loaded;
 * - any other value → manual, with a warning.
 * The IDE writes `patterns: *.kt` unquoted, which is not valid YAML (`*`
 * starts an alias): such a file is skipped with the reader's YAML warning.
 * AI Assistant defines no file reference syntax in rules.
 */
import { findLevelFolders } from "../discover/found-rules.js";
import type { FoundRules, MapperWarn, RuleSource, SourceContext } from "../discover/source.js";
import { readList } from "../conditions/front-matter-list.js";
import { MARKDOWN, without } from "./mapping.js";

const RULES = ".aiassistant/rules";

export const aiassistantSource: RuleSource = {
  id: "aiassistant",
  tool: "JetBrains AI Assistant",
  layout: { folders: [RULES], files: [] },
  references: [],
  find: (context: SourceContext): Promise<FoundRules> =>
    findLevelFolders(context, RULES, { source: "aiassistant", accept: MARKDOWN, topLevelOnly: true }),
  mapFrontMatter: (data, _file, warn, front) => mapApply(data, warn, front.lineOf("apply")),
  typeOf: (data) => (typeof data.apply === "string" ? data.apply : "always"),
};

const APPLY = ["always", "manually", "by model decision", "by file patterns", "off"];
const AI_ASSISTANT_KEYS = ["apply", "instructions", "patterns"];
const MANUAL = (data: Record<string, unknown>) => ({
  ...without(data, ...AI_ASSISTANT_KEYS, "description"),
  alwaysApply: false,
});

function mapApply(data: Record<string, unknown>, warn: MapperWarn, line?: number): Record<string, unknown> {
  const apply = data.apply ?? "always";
  const rest = without(data, ...AI_ASSISTANT_KEYS);
  switch (apply) {
    case "always":
      return { ...rest, alwaysApply: true };
    case "manually":
      return MANUAL(data);
    case "by model decision": {
      const instructions = typeof data.instructions === "string" ? data.instructions.trim() : "";
      if (instructions !== "") return { ...rest, description: instructions, alwaysApply: false };
      warn({ code: "activation-incomplete", key: "apply", value: "by model decision", lacks: "description", line });
      return MANUAL(data);
    }
    case "by file patterns": {
      const patterns = readList(data.patterns);
      // Malformed: the common reader reports the `globs` it gets and skips the rule.
      if (patterns === undefined) return { ...rest, globs: data.patterns };
      if (patterns.length > 0) return { ...rest, globs: patterns };
      warn({ code: "activation-incomplete", key: "apply", value: "by file patterns", lacks: "globs", line });
      return MANUAL(data);
    }
    case "off":
      return { ...rest, enabled: false };
    default:
      warn({ code: "activation-invalid", key: "apply", allowed: APPLY, value: JSON.stringify(apply), line });
      return MANUAL(data);
  }
}
