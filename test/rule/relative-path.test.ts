/** Path arithmetic without `node:path` where it is safe: the same answers as `path.relative`, and so the same trust boundary. */
import fc from "fast-check";
import { isAbsolute, relative, sep } from "node:path";
import { describe, expect, test } from "vitest";
import { relativePath } from "../../src/rule/relative-path.js";
import { inside } from "../../src/rule/trust.js";

/** The boundary check as it was, on `path.relative` alone. */
const insideByRelative = (path: string, folders: readonly string[]) =>
  folders.some((folder) => {
    const rel = relative(folder, path);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
  });

const part = fc.constantFrom("a", "b", "ab", ".", "..", "...", ".x", "a b", "", "é");
const path = fc
  .tuple(fc.constantFrom("/", "", "/a/", "/a/b/"), fc.array(part, { maxLength: 5 }), fc.constantFrom("", "/"))
  .map(([lead, parts, trail]) => `${lead}${parts.join("/")}${trail}`);

describe("relativePath and inside", () => {
  test("agree with path.relative on any paths", () => {
    fc.assert(
      fc.property(path, path, (from, to) => {
        expect(relativePath(from, to)).toBe(relative(from, to));
        expect(inside(to, [from])).toBe(insideByRelative(to, [from]));
      }),
      { numRuns: 20_000 },
    );
  });

  test("the boundary cases: the folder itself, a sibling sharing its prefix, `..`, the root, trailing separators", () => {
    const cases = {
      "/p /p": true,
      "/p /p/x.md": true,
      "/p /pq/x.md": false,
      "/p/ /p/x.md": true,
      "/p /p/../q": false,
      "/ /etc/passwd": true,
      "/p/a /p": false,
      "/p /p/..x/y": true,
    };
    for (const [pair, expected] of Object.entries(cases)) {
      const [folder, path] = pair.split(" ") as [string, string];
      expect([pair, inside(path, [folder])]).toEqual([pair, expected]);
      expect([pair, insideByRelative(path, [folder])]).toEqual([pair, expected]);
    }
  });
});
