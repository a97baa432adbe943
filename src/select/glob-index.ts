/**
 * Rules' globs filed by what a matching file must have (globs.ts `fixed`):
 * its first folders (`src/mod-5` of `src/mod-5/**\/*.ts`), its name, or its
 * extension. A new file is then tried only against the globs filed under its
 * own folders, name and extension, and those that fix nothing: the answer is
 * the plain loop's, at a cost that follows the file, not the number of rules.
 */
import type { FixedPart } from "./glob-pattern.js";
import { ruleGlob } from "./globs.js";

export class GlobIndex<T> {
  private readonly byPrefix = new Map<string, T[]>();
  private readonly byName = new Map<string, T[]>();
  private readonly byExtension = new Map<string, T[]>();
  /** Values with a glob that fixes nothing, in the order added: tried for every file. */
  readonly everywhere: T[] = [];
  /** The most folders a prefix has: no file's longer prefixes need a look. */
  private depth = 0;

  /** Files `value` under its globs; a value whose globs all match nothing is left out. */
  add(globs: readonly string[], value: T): void {
    const parts: FixedPart[] = [];
    for (const glob of globs) {
      const fixed = ruleGlob(glob).fixed;
      if (fixed === "any") {
        this.everywhere.push(value);
        return;
      }
      parts.push(...fixed);
    }
    const maps = { prefix: this.byPrefix, name: this.byName, extension: this.byExtension };
    for (const { kind, key } of parts) {
      const values = maps[kind].get(key) ?? [];
      if (values.length === 0) maps[kind].set(key, values);
      // Values are added one after another: a second glob under the same part adds nothing.
      if (values[values.length - 1] !== value) values.push(value);
      if (kind === "prefix") this.depth = Math.max(this.depth, key.split("/").length);
    }
  }

  /** Adds to `into` the values filed under a part `file` has (those in `everywhere` are not added). */
  collect(file: string, into: Set<T>): void {
    const add = (values: readonly T[] | undefined) => {
      if (values) for (const value of values) into.add(value);
    };
    const segments = file.split("/");
    if (this.byPrefix.size > 0) {
      let prefix = "";
      for (let i = 0; i < Math.min(segments.length, this.depth); i++) {
        prefix = i === 0 ? (segments[0] as string) : `${prefix}/${segments[i] as string}`;
        add(this.byPrefix.get(prefix));
      }
    }
    const name = segments[segments.length - 1] as string;
    add(this.byName.get(name));
    const dot = name.lastIndexOf(".");
    if (dot >= 0) add(this.byExtension.get(name.slice(dot + 1)));
  }
}
