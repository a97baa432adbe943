/**
 * A throwaway home and project (`temp-folder.ts`), with the discovery context
 * `loadRules` gets from the engine (env and home pointed at the temp folders,
 * the real file system, the default 64 KiB limit per rule).
 */
import type { DiscoveryContext } from "../../src/discover/discover.js";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";
import { type TempTree, tempTree } from "./temp-folder.js";

export const MAX_RULE_BYTES = 65536;

export interface Sandbox extends TempTree {
  context(fs?: RuleFs): DiscoveryContext;
}

export async function sandbox(prefix = "rulebook-robust-"): Promise<Sandbox> {
  const tree = await tempTree(prefix);
  return {
    ...tree,
    context: (fs = nodeRuleFs) => ({
      env: {},
      home: tree.home,
      directory: tree.project,
      worktree: tree.project,
      fs,
      maxRuleBytes: MAX_RULE_BYTES,
    }),
  };
}
