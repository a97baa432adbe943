/**
 * Which rule file a tool call writes when the path it names is not one the
 * rule set names: the same file reached through a symlink (`link/git.md`
 * where `link` leads to `.opencode/rules`) is still a rule file, named as the
 * rule set names it, so a call cannot weaken a rule unseen by spelling its
 * path another way (a linked folder, or a file that is itself a link). Only
 * the written path is resolved per call; the rule folders' real paths are
 * resolved once per rule set.
 */
import { basename, dirname, join, relative } from "node:path";
import type { RuleFs } from "../discover/fs.js";
import type { Rule } from "../rule/rule.js";
import { inside } from "../rule/trust.js";

interface LinkedRuleFiles {
  fs: Pick<RuleFs, "realpath">;
  /** The project's own rules folders (absolute, one per level), where a new file is a new rule. */
  nativeFolders: readonly string[];
  rules: readonly Rule[];
  /** Bounds a wait by the check's deadline: undefined when it came first. */
  within<T>(promise: Promise<T>): Promise<T | undefined>;
}

/** The rule folders and the project's own rules folders, by their real paths. */
interface RealFolders {
  folders: ReadonlyMap<string, string>;
  natives: ReadonlyMap<string, string>;
}

/** Per rule set: the real paths of the folders its files are in. */
const resolved = new WeakMap<readonly Rule[], Promise<RealFolders>>();

function realFolders({ fs, nativeFolders, rules }: LinkedRuleFiles): Promise<RealFolders> {
  let found = resolved.get(rules);
  if (!found) {
    const folders = [...new Set([...nativeFolders, ...rules.map((rule) => dirname(rule.path))])];
    const pairs = folders.map((folder) =>
      fs.realpath(folder).then(
        (real) => [real, folder] as const,
        () => undefined,
      ),
    );
    found = Promise.all(pairs).then((all) => {
      const known = all.filter((pair) => pair !== undefined);
      return {
        folders: new Map(known),
        natives: new Map(known.filter(([, folder]) => nativeFolders.includes(folder))),
      };
    });
    resolved.set(rules, found);
  }
  return found;
}

/** Is `path` a file in one of `folders` (at any depth)? */
export const inRulesFolder = (path: string, folders: readonly string[]): boolean =>
  folders.some((folder) => path !== folder && inside(path, [folder]));

/** Where `path` leads: the file's real path when it exists (it may itself be a link), else its folder's with its name. */
function leadsTo(path: string, fs: Pick<RuleFs, "realpath">): Promise<string | undefined> {
  return fs.realpath(path).catch(() =>
    fs.realpath(dirname(path)).then(
      (folder) => join(folder, basename(path)),
      () => undefined,
    ),
  );
}

/** The rule file `path` (absolute, not a rule file as written) reaches through symlinks, as the rule set names it; undefined for any other file. */
export async function linkedRuleFile(path: string, context: LinkedRuleFiles): Promise<string | undefined> {
  const realPath = await context.within(leadsTo(path, context.fs));
  // No link on the way: the path as written was already not a rule file.
  if (realPath === undefined || realPath === path) return undefined;
  const real = await context.within(realFolders(context));
  if (!real) return undefined;
  const named = real.folders.get(dirname(realPath));
  const candidate = named === undefined ? undefined : join(named, basename(realPath));
  if (candidate !== undefined && context.rules.some((rule) => rule.path === candidate)) return candidate;
  // The nearest level's folder holding it, as discovery ranks them.
  const native = [...real.natives].findLast(([realNative]) => inRulesFolder(realPath, [realNative]));
  return native === undefined ? undefined : join(native[1], relative(native[0], realPath));
}
