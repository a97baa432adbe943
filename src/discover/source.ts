/** The contract every place rules come from fulfils: find rule files, do not read them yet. */
import type { FrontMatterReading, FrontMatterView, RuleCandidate } from "../rule/parse.js";
import type { ReferenceSyntax } from "../rule/reference-syntax.js";
import type { Trust } from "../rule/trust.js";
import type { RuleWarning } from "../rule/warnings.js";
import type { WarningFacts } from "../rule/warnings.js";
import type { FileVersion, RuleFs } from "./fs.js";
import type { WalkBudget } from "./walk-limits.js";

export interface SourceContext {
  env: Record<string, string | undefined>;
  home: string;
  /** OpenCode's `directory`: where the session works. */
  directory: string;
  /** OpenCode's `worktree`: the repository root. */
  worktree: string;
  fs: RuleFs;
  /** The `extraDirs` option: more rules folders (project-relative, absolute or `~/…`). Read by the `extra` source. */
  extraDirs?: readonly string[];
  /**
   * The `extraDirs` the user's own OpenCode config names (global config,
   * `$OPENCODE_CONFIG`): only these may lie outside the repository.
   */
  userExtraDirs?: readonly string[];
  /** The repository's real root (symlinks resolved); discovery sets it once for every source. */
  realRoot?: string;
  /** What the source may still walk; discovery gives each source its own. */
  walkBudget?: WalkBudget;
  /**
   * Every file read and every reference stays inside `realRoot`, whatever its trust: a pack's boundary
   * (packs/pack-rules.ts).
   */
  confined?: boolean;
  /**
   * Folders below the directory found holding `fileName` by looking up from the files the session touched
   * (look-up.ts), for a source whose `lookedUp` names it; none: no such folder is known (the command line).
   */
  lookedUp?: (fileName: string) => readonly string[];
}

export interface FoundRuleFile extends RuleCandidate {
  /** Path inside its rules folder, as the discovery log names it: `sub/name.md`. */
  relPath: string;
  size: number;
  /** As the walk saw it: a parse cached for the same version is used without reading the file. */
  version?: FileVersion;
  /** The repository's (read and referenced only inside it) or the user's. */
  trust: Trust;
}

export interface FoundRules {
  files: FoundRuleFile[];
  warnings: RuleWarning[];
  /**
   * The rules folders this source looked in that exist (a single rule file's
   * folder for `.cursorrules`-style files). References may point inside them.
   */
  folders?: string[];
  /** Those of `folders` that are the user's own: a user's rule may reference files in them. */
  userFolders?: string[];
}

/**
 * What a source's front matter mapper may report: a problem with a value it reads, or a key its tool ignores (the file
 * is added by discovery).
 */
export type MapperWarn = (
  facts: Extract<
    WarningFacts,
    {
      code:
        | "activation-invalid"
        | "activation-incomplete"
        | "activation-missing"
        | "key-ignored-by-tool"
        | "glob-unusable";
    }
  >,
) => void;

/** The front matter around the data a mapper maps (see `FrontMatterView`). */
export type FrontMatterFacts = Omit<FrontMatterView, "data">;

/**
 * Where a format keeps its rules under a project level or the home folder:
 * rules folders and single rule files, as relative POSIX paths. The watcher
 * watches these places for every source: a new format declares them here.
 */
export interface SourceLayout {
  folders: readonly string[];
  files: readonly string[];
}

export interface RuleSource {
  id: string;
  /** The tool whose files these are, as warnings name it (`Claude Code`); absent for the plugin's own folders. */
  tool?: string;
  /** Absent: the source's folders are not under a project level or home (`extraDirs`), and are watched where found. */
  layout?: SourceLayout;
  find(context: SourceContext): Promise<FoundRules>;
  /**
   * A rule file the format finds in sub-folders by looking up from each file a tool touches, not ahead (Gemini CLI's
   * `GEMINI.md`): `context.lookedUp` gives the folders found so far.
   */
  lookedUp?: string;
  /**
   * The file reference syntaxes the format defines (`@path` lines, Kiro's
   * `#[[file:…]]`): only these are expanded in its rules, the other is text.
   * Absent: both (this plugin's own folders).
   */
  references?: readonly ReferenceSyntax[];
  /**
   * Folders a relative `#[[file:…]]` is also looked up in, in order, when it is not next to its rule file (Kiro's
   * workspace root).
   */
  referenceRoots?(file: FoundRuleFile, context: SourceContext): string[];
  /**
   * Turns this format's front matter into the keys the common reader knows
   * (`description`, `globs`, `keywords`, `alwaysApply`, `match`, `priority`,
   * `override`, `enabled`), removing the keys it consumed. Absent: the front
   * matter is read as native. `file` tells which file (legacy single file,
   * nested folder) the data comes from; `front`, whether the file has front
   * matter at all, its body, and the lines of keys for warnings.
   */
  mapFrontMatter?(
    data: Record<string, unknown>,
    file: FoundRuleFile,
    warn: MapperWarn,
    front: FrontMatterFacts,
  ): Record<string, unknown>;
  /**
   * How the format's tool reads front matter in this file: `none` for a
   * legacy single file whose tool reads none (`.cursorrules`: its whole
   * text is the rule, even a `---` block at its top); `lenient` for another
   * tool's rule file, which that tool still reads when its front matter does
   * not parse. Absent: `strict` (this plugin's own folders). See
   * `FrontMatterReading`.
   */
  frontMatter?(file: FoundRuleFile): FrontMatterReading;
  /**
   * The tool's own name for the rule's type, from the front matter as written
   * (Cursor "Agent Requested", Kiro "fileMatch", Windsurf "model_decision"):
   * `list` shows it beside the activation it maps to.
   */
  typeOf?(data: Record<string, unknown>, file: FoundRuleFile, front: FrontMatterFacts): string | undefined;
}
