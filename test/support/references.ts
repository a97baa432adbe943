/**
 * Reference expansion with an in-memory reader, for the tests of the pure
 * expansion (test/rule/references*.test.ts).
 */
import { expandReferences, type ReferenceOptions } from "../../src/rule/references.js";

/** An in-memory tree: path → text; `links` maps a path to its real path. */
export function memory(
  files: Record<string, string>,
  links: Record<string, string> = {},
): Pick<ReferenceOptions, "realpath" | "read"> & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    realpath: async (path) => {
      const real = links[path] ?? path;
      return real in files ? { ok: true, realPath: real } : { ok: false, missing: true, reason: "ENOENT" };
    },
    read: async (path) => {
      reads.push(path);
      return { ok: true, text: files[path] as string };
    },
  };
}

/** `text` expanded as a repository rule `/p/rules/main.md` whose references may reach all of `/p`. */
export const expand = (text: string, files: Record<string, string>, extra: Partial<ReferenceOptions> = {}) =>
  expandReferences(text, {
    file: "/p/rules/main.md",
    realFile: "/p/rules/main.md",
    allowed: ["/p"],
    allowedReal: ["/p"],
    trust: "repository",
    ...memory(files),
    ...extra,
  });
