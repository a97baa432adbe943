/**
 * A project for reading which packs are configured (pack-config.ts): a git
 * repository with its own home and config folder apart, and a managed rules
 * folder named by `OPENCODE_RULEBOOK_MANAGED_DIR`.
 */
import { join } from "node:path";
import type { PackIo } from "../../src/pack-config.js";
import { type TempTree, tempTree } from "./temp-folder.js";

export async function packTree(prefix: string): Promise<{ tree: TempTree; io: PackIo; managedFolder: string }> {
  const tree = await tempTree(prefix, { configApart: true, git: true });
  const managedFolder = join(tree.root, "managed");
  const io = {
    env: { XDG_CONFIG_HOME: tree.configHome, OPENCODE_RULEBOOK_MANAGED_DIR: join(managedFolder, "rules") },
    home: tree.home,
    directory: tree.project,
    worktree: tree.project,
  };
  return { tree, io, managedFolder };
}
