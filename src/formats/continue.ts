/**
 * Continue (https://docs.continue.dev/customize/deep-dives/rules):
 * `.continue/rules/**\/*.md` at every project level and `~/.continue/rules`
 * (global: Continue loads both, `includeGlobal` and `includeWorkspace` in
 * core/config/loadLocalAssistants.ts), and the legacy `.continuerules` at the
 * project root, which Continue still loads
 * (core/config/getWorkspaceContinueRuleDotFiles.ts) though its docs no longer
 * name it: always on, named `continuerules`. A file with `invokable: true` is
 * a prompt (a slash command), not a rule, and is not loaded
 * (core/config/markdown/loadMarkdownRules.ts).
 *
 * Front matter: `name` is Continue's display title (and what its
 * `request_rule` tool asks for); the rule keeps its file's name here, which is
 * what `@name` and shadowing use. `description`, `globs` (a glob or a list) and
 * `regex` (a pattern or a list; a file's content must match one) decide, with
 * `alwaysApply`, when the rule applies (the docs' "alwaysApply" list and
 * core/llm/rules/getSystemMessageWithRules.ts, `shouldApplyRule`):
 * - `true` → always;
 * - globs or regex → when a file in the context matches the globs AND its
 *   content matches one regex (`checkGlobsAndRegex` keeps the files the globs
 *   match, then asks that one of them match a regex): `match: all`; each
 *   regex `r` becomes the content pattern `/r/` (no flags: Continue calls
 *   `new RegExp(r)`). With `alwaysApply: false` the rule is also listed on
 *   request by its description ("or the agent decides to pull the rule into
 *   context based on its description"): `requestable: true`;
 * - no globs, no regex: `false` → on request by its description, or manual
 *   without one (Continue's "Agent Requested" and "Manual"); absent → always.
 * A regex this plugin cannot run (RE2 has no lookaround or backreferences) is
 * left under `regex`, where the common reader reports it with its line; the
 * rule keeps the others. Continue's own invalid regex never matches, so a rule
 * left with no usable regex never applies by its condition: on request by its
 * description when `alwaysApply: false`, else manual.
 * Continue defines no file reference syntax in rules.
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
import { readForbidPattern } from "../pattern/forbid-pattern.js";
import { readList } from "../conditions/front-matter-list.js";
import { hasDescription, MARKDOWN, without } from "./mapping.js";

const RULES = ".continue/rules";
const LEGACY = ".continuerules";

export const continueSource: RuleSource = {
  id: "continue",
  tool: "Continue",
  layout: { folders: [RULES], files: [LEGACY] },
  references: [],
  async find(context: SourceContext): Promise<FoundRules> {
    const found = await findHomeAndLevelFolders(context, RULES, { source: "continue", accept: MARKDOWN });
    await addSingleFile(found, context, {
      path: join(projectRootOf(context), LEGACY),
      scope: "project",
      source: "continue",
      name: "continuerules",
    });
    return found;
  },
  mapFrontMatter: (data, file, warn, front) =>
    isLegacy(file) ? { ...data, alwaysApply: true } : mapContinueRule(data, warn, front),
  typeOf: (data, file) => (isLegacy(file) ? "always" : continueType(data)),
};

const isLegacy = (file: FoundRuleFile) => file.name === "continuerules" && file.relPath === LEGACY;

/** Continue's keys, consumed by the mapping; `name` is its display title. */
const CONTINUE_KEYS = ["name", "globs", "regex", "alwaysApply", "invokable"];

export function mapContinueRule(
  data: Record<string, unknown>,
  warn: MapperWarn,
  front?: FrontMatterFacts,
): Record<string, unknown> {
  if (data.invokable === true) return { ...without(data, ...CONTINUE_KEYS), enabled: false };
  const rest = without(data, ...CONTINUE_KEYS);
  if (data.alwaysApply === true) return { ...without(rest, "description"), alwaysApply: true };
  const globs = readList(data.globs);
  // Malformed globs: left for the common reader, which reports them and skips the rule.
  if (globs === undefined) return without(data, "name", "regex", "invokable");
  const regex = readRegex(data.regex, warn, front?.lineOf("regex"));
  const requested = data.alwaysApply === false;
  if (globs.length > 0 || regex.usable.length > 0) {
    const condition: Record<string, unknown> = { ...rest };
    if (globs.length > 0) condition.globs = globs;
    if (regex.usable.length > 0) condition.fileContains = regex.usable;
    if (globs.length > 0 && regex.usable.length > 0) condition.match = "all";
    if (regex.unusable.length > 0) condition.regex = regex.unusable;
    if (requested && hasDescription(data)) condition.requestable = true;
    if (!regex.written || regex.usable.length > 0) return condition;
  }
  const unusable = regex.unusable.length > 0 ? { regex: regex.unusable } : {};
  // No condition that can hold: Continue's `request_rule` lists it by its description when `alwaysApply: false`.
  if (requested && hasDescription(data)) return { ...rest, ...unusable, alwaysApply: false };
  if (requested || regex.written) return { ...without(rest, "description"), ...unusable, alwaysApply: false };
  return { ...rest, alwaysApply: true };
}

interface ContinueRegex {
  /** The front matter gives at least one regex. */
  written: boolean;
  /** As content patterns: `/r/`. */
  usable: string[];
  /** As written, for the common reader to report. */
  unusable: string[];
}

/** Continue's `regex`: one pattern or a list (YAML list items are not split at commas, a regex may hold one). */
function readRegex(value: unknown, warn: MapperWarn, line: number | undefined): ContinueRegex {
  if (value === undefined || value === null) return { written: false, usable: [], unusable: [] };
  const items = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
  if (items === undefined || !items.every((item) => typeof item === "string")) {
    warn({
      code: "activation-invalid",
      key: "regex",
      allowed: ["a regular expression", "a YAML list of regular expressions"],
      value: JSON.stringify(value),
      line,
    });
    return { written: true, usable: [], unusable: [] };
  }
  const written = (items as string[]).filter((item) => item !== "");
  const usable: string[] = [];
  const unusable: string[] = [];
  for (const item of written) {
    const pattern = `/${item}/`;
    if ("pattern" in readForbidPattern(pattern)) usable.push(pattern);
    else unusable.push(item);
  }
  return { written: written.length > 0, usable, unusable };
}

/** The type `list` shows: `always`, `globs`, `regex`, `globs+regex`, `description` or `manual`, from the front matter as written. */
export function continueType(data: Record<string, unknown>): string {
  if (data.alwaysApply === true) return "always";
  const globs = (readList(data.globs) ?? []).length > 0;
  const regex = typeof data.regex === "string" ? data.regex !== "" : Array.isArray(data.regex) && data.regex.length > 0;
  if (globs && regex) return "globs+regex";
  if (globs) return "globs";
  if (regex) return "regex";
  if (data.alwaysApply === false) return hasDescription(data) ? "description" : "manual";
  return "always";
}
