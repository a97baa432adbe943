/**
 * What Roo Code and Kilo Code share (Kilo Code is a fork of Roo Code): a
 * `.roo` / `.kilocode` folder whose `rules/` folder holds rules for every
 * mode and whose `rules-{mode}/` folders hold rules for one mode, a legacy
 * single file (`.roorules`, `.kilocoderules`) read only when no rules
 * folder has a file, and legacy per-mode files (`.roorules-{mode}`) read
 * only when no `rules-{mode}` folder has a file for that mode
 * (https://github.com/RooCodeInc/Roo-Code, src/core/prompts/sections/custom-instructions.ts;
 * https://kilo.ai/docs/customize/custom-rules). Every file is plain text,
 * always on: the tools read no front matter. A mode is mapped onto the
 * OpenCode agent that works like it (MODE_AGENTS): the rule is scoped to that
 * agent (`agents:`), and `list` shows its type as `mode: {mode}`.
 */
import { basename, join, sep } from "node:path";
import { addFolder, addSingleFile, emptyFound } from "../discover/found-rules.js";
import { errorCode, errorReason } from "../discover/fs.js";
import { prefetch } from "../discover/probe.js";
import { projectLevels, projectRootOf } from "../discover/project.js";
import type {
  FoundRuleFile,
  FoundRules,
  FrontMatterFacts,
  MapperWarn,
  RuleSource,
  SourceContext,
} from "../discover/source.js";
import { ruleWarning } from "../rule/warnings.js";
import { folderPrefix } from "./folder-scope.js";
import { ignoredByTool, without } from "./mapping.js";

/**
 * Roo's and Kilo's built-in modes as OpenCode's agents: `code` works as
 * `build`, `architect` as `plan`; any other mode (`debug`, `ask`,
 * `orchestrator`, a custom mode) as the OpenCode agent of the same name.
 */
export const MODE_AGENTS: ReadonlyMap<string, string> = new Map([
  ["code", "build"],
  ["architect", "plan"],
]);

/** The built-in modes: their legacy per-mode files are watched (a custom mode's are seen at the next load). */
const BUILT_IN_MODES = ["code", "architect", "ask", "debug", "orchestrator"] as const;

/** A Map, not an object: a mode named `constructor` or `__proto__` is a mode like any other, not an inherited member. */
export function agentOfMode(mode: string): string {
  return MODE_AGENTS.get(mode) ?? mode;
}

export interface ModeLayout {
  /** The source's id. */
  source: string;
  /** The tool's name, for warnings. */
  tool: string;
  /** The tool's folder under the home and each project level: `.roo`, `.kilocode`. */
  dir: string;
  /** The legacy single file: `.roorules`. */
  legacy: string;
  /** The legacy per-mode files' prefixes, in the order tried: `.roorules-`, then `.clinerules-`. */
  legacyModes: readonly string[];
  /** Whether `~/{dir}/rules-{mode}` is read too (Roo: yes; Kilo: "only supported at the project level"). */
  globalModes: boolean;
  /** Which files in a rules folder are rules. */
  accept: (name: string) => boolean;
}

/** The source of a tool with this layout: Roo Code's, Kilo Code's. Neither defines a file reference syntax. */
export function modeSource(layout: ModeLayout): RuleSource {
  return {
    id: layout.source,
    tool: layout.tool,
    layout: modeLayout(layout),
    references: [],
    find: (context) => findModeRules(context, layout),
    mapFrontMatter: (data, file, warn, front) => mapModeRule(layout, data, file, warn, front),
    typeOf: (_data, file) => modeType(layout, file),
  };
}

/** The watcher's layout: the rules folder (its parent folder is watched whole, so a new `rules-{mode}` folder is seen), the legacy files. */
function modeLayout(layout: ModeLayout): { folders: string[]; files: string[] } {
  const modeFiles = layout.legacyModes.flatMap((prefix) => BUILT_IN_MODES.map((mode) => `${prefix}${mode}`));
  return { folders: [`${layout.dir}/rules`], files: [layout.legacy, ...modeFiles] };
}

async function findModeRules(context: SourceContext, layout: ModeLayout): Promise<FoundRules> {
  const found = emptyFound();
  const root = projectRootOf(context);
  const levels = projectLevels(context);
  const named = (level: string, name: string) => {
    const prefix = level === context.home ? "" : folderPrefix(root, level);
    return prefix ? `${prefix}/${name}` : name;
  };
  const addRules = async (level: string, folder: string, scope: "global" | "project") => {
    const before = found.files.length;
    await addFolder(found, context, {
      folder: join(level, layout.dir, folder),
      scope,
      source: layout.source,
      accept: layout.accept,
      nameOf: (relPath) => named(level, `${folder === "rules" ? "" : `${folder}/`}${relPath.replace(/\.md$/i, "")}`),
    });
    return found.files.length > before;
  };
  prefetch(
    context.fs,
    [context.home, ...levels].map((base) => join(base, layout.dir)),
  );
  // Rules for every mode; the legacy file only when no rules folder has one.
  let generic = await addRules(context.home, "rules", "global");
  for (const level of levels) generic = (await addRules(level, "rules", "project")) || generic;
  if (!generic) {
    for (const level of levels)
      await addSingleFile(found, context, {
        path: join(level, layout.legacy),
        scope: "project",
        source: layout.source,
        name: named(level, layout.legacy.slice(1)),
      });
  }
  // Rules for one mode; a mode's legacy file only when no `rules-{mode}` folder has one.
  const modesWithFolders = new Set<string>();
  const bases: Array<[string, "global" | "project"]> = [
    ...(layout.globalModes ? [[context.home, "global"] as [string, "global"]] : []),
    ...levels.map((level): [string, "project"] => [level, "project"]),
  ];
  for (const [base, scope] of bases) {
    for (const mode of await modeFolders(join(base, layout.dir), context, found)) {
      if (await addRules(base, `rules-${mode}`, scope)) modesWithFolders.add(mode);
    }
  }
  for (const level of levels) {
    const names = await entryNames(level, context, found);
    const added = new Set<string>();
    for (const prefix of layout.legacyModes) {
      for (const name of names) {
        const mode = name.startsWith(prefix) ? name.slice(prefix.length) : "";
        if (mode === "" || modesWithFolders.has(mode) || added.has(mode)) continue;
        const kind = await addSingleFile(found, context, {
          path: join(level, name),
          scope: "project",
          source: layout.source,
          name: named(level, name.slice(1)),
        });
        if (kind.kind === "file") added.add(mode);
      }
    }
  }
  return found;
}

/** The `{mode}` of each `rules-{mode}` entry of the tool's folder, in name order. */
async function modeFolders(dir: string, context: SourceContext, found: Required<FoundRules>): Promise<string[]> {
  const names = await entryNames(dir, context, found);
  return names.filter((name) => /^rules-./.test(name)).map((name) => name.slice("rules-".length));
}

/** A folder's entry names in name order; none when it does not exist, a warning when it cannot be read. */
async function entryNames(dir: string, context: SourceContext, found: Required<FoundRules>): Promise<string[]> {
  try {
    return (await context.fs.readdir(dir)).map((entry) => entry.name).sort();
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR")
      found.warnings.push(ruleWarning(dir, { code: "path-unreadable", reason: errorReason(error) }));
    return [];
  }
}

/** The mode a rule file is for: its `rules-{mode}` folder under `dir`, or its legacy `.roorules-{mode}` file; undefined for every mode. */
function modeOf(file: FoundRuleFile, layout: Pick<ModeLayout, "dir" | "legacyModes">): string | undefined {
  const parts = file.path.split(sep);
  for (let i = parts.length - 2; i > 0; i--) {
    if (parts[i - 1] === layout.dir && parts[i]?.startsWith("rules-")) return parts[i]?.slice("rules-".length);
  }
  const name = basename(file.path);
  const prefix = layout.legacyModes.find((start) => name.startsWith(start));
  return prefix === undefined ? undefined : name.slice(prefix.length);
}

/** Other tools' activation keys: these tools read no front matter, so a rule is always on whatever it says. */
const NOT_READ = ["alwaysApply", "globs", "paths", "applyTo", "fileMatchPattern", "trigger", "inclusion", "agents"];

/** Always on; a mode's rule only for the mode's agent. */
function mapModeRule(
  layout: ModeLayout,
  data: Record<string, unknown>,
  file: FoundRuleFile,
  warn: MapperWarn,
  front: FrontMatterFacts,
): Record<string, unknown> {
  const read = ignoredByTool(
    data,
    NOT_READ,
    { tool: layout.tool, reads: "no front matter", alwaysOn: false },
    warn,
    front,
  );
  const mode = modeOf(file, layout);
  return {
    ...without(read, "agents"),
    alwaysApply: true,
    ...(mode === undefined ? {} : { agents: [agentOfMode(mode)] }),
  };
}

function modeType(layout: Pick<ModeLayout, "dir" | "legacyModes">, file: FoundRuleFile): string {
  const mode = modeOf(file, layout);
  return mode === undefined ? "always" : `mode: ${mode}`;
}
