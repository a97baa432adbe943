/**
 * Rules' globs filed by what a matching file must have (rule-glob.ts `fixed`):
 * its first folders (`src/mod-5` of `src/mod-5/**\/*.ts`), its name, or its
 * extension. A new file is then tried only against the globs filed under its
 * own folders, name and extension, and those that fix nothing: the answer is
 * the plain loop's, at a cost that follows the file, not the number of rules.
 */
import type { FixedPart } from "./fixed-part.js";
import { ruleGlob } from "./rule-glob.js";

export interface GlobIndex<T> {
  /** Values with a glob that fixes nothing, in the order added: tried for every file. */
  readonly everywhere: T[];
  /** Files `value` under its globs; a value whose globs all match nothing is left out. */
  add(globs: readonly string[], value: T): void;
  /** Adds to `into` the values filed under a part `file` has (those in `everywhere` are not added). */
  collect(file: string, into: Set<T>): void;
}

export function globIndex<T>(): GlobIndex<T> {
  const maps = { prefix: new Map<string, T[]>(), name: new Map<string, T[]>(), extension: new Map<string, T[]>() };
  const everywhere: T[] = [];
  /** The most folders a prefix has: no file's longer prefixes need a look. */
  let depth = 0;
  return {
    everywhere,
    add(globs, value) {
      const parts: FixedPart[] = [];
      for (const glob of globs) {
        const fixed = ruleGlob(glob).fixed;
        if (fixed === "any") {
          everywhere.push(value);
          return;
        }
        parts.push(...fixed);
      }
      for (const { kind, key } of parts) {
        const values = maps[kind].get(key) ?? [];
        if (values.length === 0) maps[kind].set(key, values);
        // Values are added one after another: a second glob under the same part adds nothing.
        if (values[values.length - 1] !== value) values.push(value);
        if (kind === "prefix") depth = Math.max(depth, key.split("/").length);
      }
    },
    collect(file, into) {
      const add = (values: readonly T[] | undefined) => {
        if (values) for (const value of values) into.add(value);
      };
      const segments = file.split("/");
      if (maps.prefix.size > 0) {
        let prefix = "";
        for (let i = 0; i < Math.min(segments.length, depth); i++) {
          prefix = i === 0 ? (segments[0] as string) : `${prefix}/${segments[i] as string}`;
          add(maps.prefix.get(prefix));
        }
      }
      const name = segments[segments.length - 1] as string;
      add(maps.name.get(name));
      const dot = name.lastIndexOf(".");
      if (dot >= 0) add(maps.extension.get(name.slice(dot + 1)));
    },
  };
}
