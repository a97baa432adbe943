/**
 * Augment (https://docs.augmentcode.com/setup-augment/guidelines and
 * https://docs.augmentcode.com/cli/rules): `.augment/rules/**\/*.md`
 * ("Recursively searches .md files") at every project level, and
 * `~/.augment/rules` (user rules, "always treated as always_apply type …
 * regardless of any frontmatter configuration"). The legacy workspace
 * guidelines file is always on: `.augment-guidelines` at the project root,
 * which the docs also name `.augment/guidelines.md`: both are read, named
 * `augment-guidelines` (when both exist, `.augment-guidelines` wins and the
 * other is shadowed).
 *
 * `type` maps to activation:
 * - `always_apply` → always; also when `type` is absent (the CLI docs'
 *   "Default: always_apply");
 * - `manual` → only when mentioned as `@name`;
 * - `agent_requested`, or `auto` (the IDE's name for it: "Auto: Agent will
 *   automatically detect and attach rules based on a description field";
 *   the files it writes say `type: "auto"`) → on request by its
 *   `description` (without one: manual, with a warning);
 * - any other value → manual, with a warning.
 * Augment reads no other key: another tool's scoping key (`globs`, `paths`,
 * `applyTo`, `fileMatchPattern`, `alwaysApply`) is ignored here too, with a
 * warning. Augment defines no file reference syntax in rules.
 */
import { join } from "node:path";
import { addSingleFile, findHomeAndLevelFolders } from "../discover/found-rules.js";
import { projectRootOf } from "../discover/project.js";
import type {
  FoundRuleFile,
  FoundRules,
  FrontMatterFacts,
  MapperWarn,
  RuleSource,
  SourceContext,
} from "../discover/source.js";
import { hasDescription, ignoredByTool, MARKDOWN, without } from "./mapping.js";

const RULES = ".augment/rules";
const LEGACY = ".augment-guidelines";
const LEGACY_IN_FOLDER = ".augment/guidelines.md";

export const augmentSource: RuleSource = {
  id: "augment",
  tool: "Augment",
  layout: { folders: [RULES], files: [LEGACY, LEGACY_IN_FOLDER] },
  references: [],
  async find(context: SourceContext): Promise<FoundRules> {
    const found = await findHomeAndLevelFolders(context, RULES, { source: "augment", accept: MARKDOWN });
    const root = projectRootOf(context);
    await addSingleFile(found, context, {
      path: join(root, LEGACY),
      scope: "project",
      source: "augment",
      name: "augment-guidelines",
    });
    await addSingleFile(found, context, {
      path: join(root, LEGACY_IN_FOLDER),
      scope: "project",
      source: "augment",
      name: "augment-guidelines",
    });
    return found;
  },
  mapFrontMatter(
    data: Record<string, unknown>,
    file: FoundRuleFile,
    warn: MapperWarn,
    front: FrontMatterFacts,
  ): Record<string, unknown> {
    if (isAlwaysFile(file)) return { ...without(data, "type"), alwaysApply: true };
    const read = ignoredByTool(data, NOT_AUGMENT, { tool: "Augment", reads: "type", alwaysOn: false }, warn, front);
    return mapAugmentType(read, warn, front.lineOf("type"));
  },
  typeOf: augmentType,
};

/** The type as Augment names it (`auto` stays `auto`); none for a value that is not a name. */
function augmentType(data: Record<string, unknown>, file: FoundRuleFile): string | undefined {
  if (isAlwaysFile(file) || data.type === undefined || data.type === null) return "always_apply";
  return typeof data.type === "string" ? data.type : undefined;
}

/** The legacy guidelines files, and user rules: always on whatever their front matter says. */
function isAlwaysFile(file: FoundRuleFile): boolean {
  if (file.scope === "global") return true;
  return file.relPath === LEGACY || file.path.endsWith(`/${LEGACY_IN_FOLDER}`);
}

const TYPES = ["always_apply", "manual", "agent_requested", "auto"];
/** Other tools' scoping keys: Augment reads `type` and `description` only. */
const NOT_AUGMENT = ["globs", "paths", "applyTo", "fileMatchPattern", "alwaysApply"];

const MANUAL = (data: Record<string, unknown>) => ({ ...without(data, "type", "description"), alwaysApply: false });

function mapAugmentType(data: Record<string, unknown>, warn: MapperWarn, line?: number): Record<string, unknown> {
  const type = data.type ?? "always_apply";
  switch (type) {
    case "always_apply":
      return { ...without(data, "type"), alwaysApply: true };
    case "manual":
      return MANUAL(data);
    case "agent_requested":
    case "auto":
      if (hasDescription(data)) return { ...without(data, "type"), alwaysApply: false };
      warn({ code: "activation-incomplete", key: "type", value: String(type), lacks: "description", line });
      return MANUAL(data);
    default:
      warn({ code: "activation-invalid", key: "type", allowed: TYPES, value: JSON.stringify(type), line });
      return MANUAL(data);
  }
}
