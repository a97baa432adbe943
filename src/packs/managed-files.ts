/**
 * Which of the managed tier's files someone other than its administrator
 * could have written: the file itself, or a folder between the tier's root
 * and it (a link planted in an open sub-folder would read any root-owned file
 * as a managed rule). Each folder is checked once.
 */
import { dirname } from "node:path";
import { errorReason, type RuleFs } from "../discover/fs.js";
import { inside, managedOwners, ownerProblem } from "../rule/trust.js";

/** By path, why each file of `paths` (under `root`) may not be trusted as managed; the others are absent. */
export async function untrustedFiles(
  fs: Pick<RuleFs, "stat">,
  root: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const owners = managedOwners(process.platform, process.getuid?.());
  const reasons = new Map<string, string>();
  if (!owners) return reasons;
  const checked = new Map<string, Promise<string | undefined>>();
  const problemOf = (path: string) => {
    let known = checked.get(path);
    if (!known) {
      known = fs.stat(path).then(
        (stat) => ownerProblem(path, stat, owners),
        (error) => `${path} cannot be checked (${errorReason(error)})`,
      );
      checked.set(path, known);
    }
    return known;
  };
  await Promise.all(
    paths.map(async (path) => {
      for (const step of [path, ...foldersUpTo(root, path)]) {
        const reason = await problemOf(step);
        if (reason) return void reasons.set(path, reason);
      }
    }),
  );
  return reasons;
}

/** The folders from `path`'s folder up to `root`, both included; none when `path` is not under `root`. */
function foldersUpTo(root: string, path: string): string[] {
  if (!inside(path, [root])) return [];
  const folders: string[] = [];
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    folders.push(folder);
    if (folder === root || dirname(folder) === folder || !inside(folder, [root])) return folders;
  }
}
