/**
 * Kiro: `.kiro/steering/*.md` at every project level and `~/.kiro/steering`
 * (global). `inclusion` maps to activation:
 * - `always` (Kiro's default, also when absent) → always;
 * - `fileMatch` → the `fileMatchPattern` globs (without them: manual, with a warning);
 * - `manual` → only when mentioned as `@name` (Kiro's `#name`);
 * - `auto` → on request, listed by its `description`; Kiro matches an auto
 *   rule by its name as well as its description, so one without a
 *   description is listed by its name and first heading;
 * - any other value → manual, with a warning.
 * (https://kiro.dev/docs/steering/, "Inclusion modes".) Kiro scopes a rule
 * by `fileMatchPattern` only: another tool's scoping key (`globs`, `paths`,
 * `applyTo`) is ignored here too, with a warning naming it and its line, so
 * `inclusion: fileMatch` with `globs` alone is a fileMatch rule without a
 * pattern (manual), and `always` with `globs` stays always.
 */
import { dirname } from "node:path";
import { findHomeAndLevelFolders } from "../discover/found-rules.js";
import { projectRootOf } from "../discover/project.js";
import type { FoundRules, MapperWarn, RuleSource, SourceContext } from "../discover/source.js";
import { GLOB_KEYS } from "../conditions/files.js";
import { readList } from "../conditions/front-matter-list.js";
import { describedOrNamed, ignoredByTool, MARKDOWN, type NamedText, without } from "./mapping.js";

const STEERING = ".kiro/steering";

export const kiroSource: RuleSource = {
  id: "kiro",
  tool: "Kiro",
  layout: { folders: [STEERING], files: [] },
  find: (context: SourceContext): Promise<FoundRules> =>
    findHomeAndLevelFolders(context, STEERING, { source: "kiro", accept: MARKDOWN, topLevelOnly: true }),
  // Kiro's own syntax; paths in it are written from the workspace root as often as from the steering file.
  references: ["kiro-file"],
  referenceRoots: (file, context) => {
    if (file.scope !== "project") return [];
    const level = dirname(dirname(dirname(file.path)));
    const root = projectRootOf(context);
    return level === root ? [root] : [level, root];
  },
  mapFrontMatter: (data, file, warn, front) =>
    mapInclusion(
      ignoredByTool(data, NOT_KIRO, { tool: "Kiro", reads: "fileMatchPattern", alwaysOn: false }, warn, front),
      warn,
      { name: file.name, body: front.body },
    ),
  // Kiro still reads a steering file whose front matter does not parse: it loads, applying only when mentioned, with a warning.
  frontMatter: () => "lenient",
  typeOf: (data) => (typeof data.inclusion === "string" ? data.inclusion : "always"),
};

/** Other tools' scoping keys, which Kiro does not read. */
const NOT_KIRO = GLOB_KEYS.filter((key) => key !== "fileMatchPattern");

const MANUAL = (data: Record<string, unknown>) => ({
  ...without(data, "inclusion", "description", "fileMatchPattern"),
  alwaysApply: false,
});

export function mapInclusion(
  data: Record<string, unknown>,
  warn: MapperWarn,
  rule: NamedText = { name: "", body: "" },
): Record<string, unknown> {
  const inclusion = data.inclusion ?? "always";
  switch (inclusion) {
    case "always":
      return { ...without(data, "inclusion", "fileMatchPattern"), alwaysApply: true };
    case "fileMatch": {
      const patterns = readList(data.fileMatchPattern);
      if (patterns !== undefined && patterns.length === 0) {
        warn({ code: "activation-incomplete", key: "inclusion", value: "fileMatch", lacks: "fileMatchPattern" });
        return MANUAL(data);
      }
      return without(data, "inclusion", "alwaysApply");
    }
    case "manual":
      return MANUAL(data);
    case "auto": {
      // Kiro's `name` usually repeats the file name; the rule keeps its file's name.
      const auto = { ...without(data, "inclusion", "fileMatchPattern", "name"), alwaysApply: false };
      return describedOrNamed(auto, data, rule, typeof data.name === "string" ? data.name.trim() : "");
    }
    default:
      warn({
        code: "activation-invalid",
        key: "inclusion",
        allowed: ["always", "fileMatch", "manual", "auto"],
        value: JSON.stringify(inclusion),
      });
      return MANUAL(data);
  }
}
