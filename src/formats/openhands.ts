/**
 * OpenHands skills, formerly microagents
 * (https://docs.openhands.dev/overview/skills and
 * https://docs.openhands.dev/openhands/usage/prompting/microagents-overview;
 * the loader: OpenHands/software-agent-sdk,
 * openhands-sdk/openhands/sdk/skills/skill.py). Folders, in OpenHands'
 * precedence: `.agents/skills`, `.openhands/skills` and the deprecated
 * `.openhands/microagents` at every project level (OpenHands: the working
 * directory and the git root), and the same three under the home folder
 * (`USER_SKILLS_DIRS`). Every `.md` file in them, sub-folders included, is a
 * skill named by its path (`.openhands/microagents/repo.md` is `repo`), except
 * `README.md`, `SKILL.md` files and the folders holding one: those are
 * AgentSkills skills, which OpenCode discovers itself in `.agents/skills` and
 * offers by name and description through its own skill tool.
 *
 * Front matter (`_create_skill_from_metadata`):
 * - `paths` (a glob, comma-separated globs or a list) → those files: the
 *   skill is injected when the agent touches a matching file; `paths` wins,
 *   so `triggers` beside it is ignored, with a warning;
 * - `triggers` (a YAML list) → keywords. OpenHands matches them in the
 *   user's message case-insensitively as whole tokens (`git` does not fire on
 *   `github`; `_keyword_matches`, since OpenHands/software-agent-sdk#4008),
 *   which is how this plugin matches keywords; earlier versions matched
 *   substrings;
 * - neither (or an empty list) → always ("Without triggers (None): Full
 *   content in <REPO_CONTEXT>, always active"), repo.md among them.
 * `triggers` that is not a list makes OpenHands refuse the skill ("Triggers
 * must be a list of strings"): here it is manual, with a warning. `name`,
 * `type`, `agent` and `version` describe the skill to OpenHands and change
 * nothing of when it applies (the type is inferred from `triggers`).
 * OpenHands defines no file reference syntax in skills.
 */
import { basename } from "node:path";
import { emptyFound, findHomeAndLevelFolders } from "../discover/found-rules.js";
import type {
  FoundRuleFile,
  FoundRules,
  FrontMatterFacts,
  MapperWarn,
  RuleSource,
  SourceContext,
} from "../discover/source.js";
import { readList } from "../conditions/front-matter-list.js";
import { MARKDOWN, without } from "./mapping.js";

/** In OpenHands' order of precedence. */
const FOLDERS = [".agents/skills", ".openhands/skills", ".openhands/microagents"];
/** Keys OpenHands reads that say nothing about when a skill applies. */
const DESCRIPTIVE = ["name", "type", "agent", "version"];

export const openhandsSource: RuleSource = {
  id: "openhands",
  tool: "OpenHands",
  layout: { folders: FOLDERS, files: [] },
  references: [],
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    for (const folder of FOLDERS) {
      const inFolder = await findHomeAndLevelFolders(context, folder, { source: "openhands", accept: MARKDOWN });
      found.files.push(...withoutAgentSkills(inFolder.files));
      found.warnings.push(...inFolder.warnings);
      found.folders.push(...inFolder.folders);
      found.userFolders.push(...inFolder.userFolders);
    }
    return found;
  },
  mapFrontMatter: (data, _file, warn, front) => mapTriggers(data, warn, front),
  typeOf: (data) => openhandsType(data),
};

/** Drops `README.md`, every `SKILL.md`, and the files of a folder holding a `SKILL.md` directly under its skills folder. */
function withoutAgentSkills(files: readonly FoundRuleFile[]): FoundRuleFile[] {
  const skillOf = (file: FoundRuleFile) =>
    `${file.path.slice(0, file.path.length - file.relPath.length)}\0${file.relPath.split("/")[0]}`;
  const skills = new Set(files.filter((file) => /^[^/]+\/skill\.md$/i.test(file.relPath)).map(skillOf));
  const name = (file: FoundRuleFile) => basename(file.path);
  return files.filter(
    (file) =>
      name(file) !== "README.md" &&
      name(file).toLowerCase() !== "skill.md" &&
      !(file.relPath.includes("/") && skills.has(skillOf(file))),
  );
}

export function mapTriggers(
  data: Record<string, unknown>,
  warn: MapperWarn,
  front?: FrontMatterFacts,
): Record<string, unknown> {
  const rest = without(data, ...DESCRIPTIVE, "triggers", "paths");
  const paths = readList(data.paths);
  // Malformed `paths`: left for the common reader, which reports it and skips the rule.
  if (paths === undefined) return without(data, ...DESCRIPTIVE, "triggers");
  if (paths.length > 0) {
    if (data.triggers !== undefined && data.triggers !== null) {
      warn({
        code: "key-ignored-by-tool",
        key: "triggers",
        tool: "OpenHands",
        reads: "paths",
        alwaysOn: false,
        line: front?.lineOf("triggers"),
      });
    }
    return { ...rest, paths };
  }
  const triggers = data.triggers;
  if (
    triggers !== undefined &&
    triggers !== null &&
    !(Array.isArray(triggers) && triggers.every((item) => typeof item === "string"))
  ) {
    warn({
      code: "activation-invalid",
      key: "triggers",
      allowed: ["a YAML list of keywords"],
      value: JSON.stringify(triggers),
      line: front?.lineOf("triggers"),
    });
    return { ...without(rest, "description"), alwaysApply: false };
  }
  const keywords = ((triggers as string[] | undefined) ?? []).filter((keyword) => keyword.trim() !== "");
  if (keywords.length > 0) return { ...rest, keywords };
  return { ...rest, alwaysApply: true };
}

/** OpenHands' own names: `repo` (no trigger: always), `knowledge` (keyword triggers), `path` (its `PathTrigger`). */
export function openhandsType(data: Record<string, unknown>): string {
  if ((readList(data.paths) ?? []).length > 0) return "path";
  return Array.isArray(data.triggers) && data.triggers.length > 0 ? "knowledge" : "repo";
}
