/**
 * Gemini CLI (https://geminicli.com/docs/cli/gemini-md/, "Understanding the
 * context hierarchy"): `~/.gemini/GEMINI.md` (global), `GEMINI.md` in the
 * directory and each folder above it up to the project root: always on, the
 * CLI sends them with every prompt. A sub-folder's file below the directory
 * is a "just-in-time" context file: the CLI loads it when a tool accesses a
 * file or folder in that folder or below (its `loadJitSubdirectoryMemory`
 * looks up from the accessed path, hidden and git-ignored folders included),
 * and so does the plugin (discover/look-up.ts), scoping it to its folder's
 * files (folder-scope.ts). The global file is named `gemini-global`, the
 * project root's `GEMINI`, a level's or sub-folder's `pkg/a/GEMINI`.
 * Only the default name `GEMINI.md` is read: the `context.fileName` setting
 * (which may name `AGENTS.md`, read by OpenCode itself) is not.
 *
 * Imports (https://geminicli.com/docs/reference/memport/): `@path` anywhere
 * in a line after a blank (`gemini-import`, rule/reference-syntax.ts),
 * relative to the file or absolute, nested up to 5 levels, never in code,
 * a circular import refused; within the trust boundary (Gemini CLI allows
 * only the project root as well).
 *
 * `~/.gemini/GEMINI.md` is also Antigravity's global rule: discovery reads a
 * path once, for the first source in precedence order (`antigravity` when it
 * is enabled, else `gemini`); both map it alike.
 */
import { dirname, join } from "node:path";
import { addSingleFile, emptyFound } from "../discover/found-rules.js";
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
import { folderPrefix, scopeToFolder } from "./folder-scope.js";
import { ignoredByTool } from "./mapping.js";

const FILE = "GEMINI.md";
/** Under the home folder. */
const GLOBAL = ".gemini/GEMINI.md";
export const GEMINI_GLOBAL_NAME = "gemini-global";

export const geminiSource: RuleSource = {
  id: "gemini",
  tool: "Gemini CLI",
  layout: { folders: [], files: [FILE, GLOBAL] },
  lookedUp: FILE,
  references: ["gemini-import"],
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const root = projectRootOf(context);
    const levels = projectLevels(context);
    const below = context.lookedUp?.(FILE) ?? [];
    prefetch(context.fs, [join(context.home, GLOBAL), ...[...levels, ...below].map((level) => join(level, FILE))]);
    await addGeminiGlobal(found, context, "gemini");
    const add = async (folder: string, scoped: boolean) => {
      const prefix = folderPrefix(root, folder);
      const kind = await addSingleFile(found, context, {
        path: join(folder, FILE),
        scope: "project",
        source: "gemini",
        name: prefix ? `${prefix}/GEMINI` : "GEMINI",
      });
      // A sub-folder's file is told apart by its path from the project root: the mapper scopes it to its folder.
      const file = found.files.at(-1);
      if (scoped && kind.kind === "file" && file) file.relPath = `${prefix}/${FILE}`;
    };
    for (const level of levels) await add(level, false);
    for (const folder of below) await add(folder, true);
    return found;
  },
  mapFrontMatter: (data, file, warn, front) => mapAlwaysOn(data, file, warn, front, "Gemini CLI"),
  // A sub-folder's file is what the docs call a "just-in-time (JIT) context file": loaded for work in its folder.
  typeOf: (_data, file) => (file.scope === "project" && dirname(file.relPath) !== "." ? "JIT context" : "always"),
};

/** `~/.gemini/GEMINI.md`, Gemini CLI's and Antigravity's global rule. */
export function addGeminiGlobal(found: ReturnType<typeof emptyFound>, context: SourceContext, source: string) {
  return addSingleFile(found, context, {
    path: join(context.home, GLOBAL),
    scope: "global",
    source,
    name: GEMINI_GLOBAL_NAME,
  });
}

/** Other tools' activation keys: Gemini CLI reads no front matter. */
const NOT_READ = ["alwaysApply", "globs", "paths", "applyTo", "fileMatchPattern", "trigger", "inclusion"];

/** A GEMINI.md: always on, whatever its front matter says; a sub-folder's, for its folder's files. */
function mapAlwaysOn(
  data: Record<string, unknown>,
  file: FoundRuleFile,
  warn: MapperWarn,
  front: FrontMatterFacts,
  tool: string,
): Record<string, unknown> {
  const read = ignoredByTool(data, NOT_READ, { tool, reads: "no front matter", alwaysOn: false }, warn, front);
  const mapped = { ...read, alwaysApply: true };
  const folder = dirname(file.relPath);
  return file.scope === "project" && folder !== "." ? scopeToFolder(mapped, folder) : mapped;
}
