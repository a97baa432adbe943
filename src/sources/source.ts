/** The contract every place rules come from fulfils: find rule files, do not read them yet. */
import type { RuleCandidate } from "../rule/parse.js";
import type { RuleWarning } from "../rule/rule.js";
import type { RuleFs } from "./fs.js";

export interface SourceContext {
  env: Record<string, string | undefined>;
  home: string;
  /** OpenCode's `directory`: where the session works. */
  directory: string;
  /** OpenCode's `worktree`: the repository root. */
  worktree: string;
  fs: RuleFs;
}

export interface FoundRuleFile extends RuleCandidate {
  /** Path inside its rules folder, as the discovery log names it: `sub/name.md`. */
  relPath: string;
  size: number;
}

export interface FoundRules {
  files: FoundRuleFile[];
  warnings: RuleWarning[];
}

export interface RuleSource {
  id: string;
  find(context: SourceContext): Promise<FoundRules>;
}
