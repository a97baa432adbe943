import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Rule } from "../../src/rule/rule.js";
import { globIndex } from "../../src/glob/index-by-part.js";
import { matchingGlob, ruleGlob } from "../../src/glob/rule-glob.js";
import { globsOf, matchNewFiles, type FileMatch } from "../../src/conditions/files.js";
import { makeRule } from "../support/rules.js";

/** matchNewFiles without an index: every glob rule not matched yet, against every new file. */
function plainMatchNewFiles(
  rules: readonly Rule[],
  newFiles: readonly string[],
  fileMatches: Map<string, FileMatch>,
): void {
  for (const rule of rules) {
    if (globsOf(rule).length === 0 || fileMatches.has(rule.name)) continue;
    for (const file of newFiles) {
      const glob = matchingGlob(file, globsOf(rule));
      if (glob !== undefined) {
        fileMatches.set(rule.name, { kind: "file", file, glob });
        break;
      }
    }
  }
}

// Few names, so that globs and files often meet.
const near = fc.constantFrom("src", "a", "x.ts");
const nearGlob = fc
  .array(fc.oneof(near, fc.constantFrom("*", "**", "*.ts", "{a,src}", "@(x.ts|b)")), { minLength: 1, maxLength: 3 })
  .map((pieces) => pieces.join("/"));
const nearFile = fc.array(near, { minLength: 1, maxLength: 3 }).map((segments) => segments.join("/"));
const segment = fc.constantFrom("src", "lib", "a", "x.ts", "b.md", "Makefile", "", ".x", "ü.md");
const globPiece = fc.oneof(
  segment,
  fc.constantFrom(
    "*",
    "**",
    "?",
    "*.ts",
    "*.md",
    "x.*",
    "*.*",
    "[ab]",
    "[!a]*",
    "{a,b.md}",
    "{src,lib}",
    "{a,*}",
    "@(a|x.ts)",
    "?(b)",
    "{1..3}",
    "a\\*",
    "*s",
    "**.ts",
    "*/",
  ),
);
const glob = fc.oneof(
  nearGlob,
  fc
    .tuple(fc.constantFrom("", "", "./", "/", "!", "!!", "**/"), fc.array(globPiece, { minLength: 1, maxLength: 4 }))
    .map(([lead, pieces]) => lead + pieces.join("/")),
  fc.array(globPiece, { minLength: 1, maxLength: 2 }).map((pieces) => pieces.join("")),
  fc.string({ maxLength: 8 }),
);
const file = fc.oneof(
  nearFile,
  fc
    .tuple(fc.constantFrom("", "", "/"), fc.array(segment, { minLength: 1, maxLength: 4 }))
    .map(([lead, segments]) => lead + segments.join("/")),
  fc.string({ maxLength: 8 }),
);
const rules = fc
  .array(
    fc.record({
      name: fc.constantFrom("r1", "r2", "r3", "r4", "r5", "r6"),
      globs: fc.array(glob, { maxLength: 3 }),
      alwaysApply: fc.constantFrom(undefined, true, false),
    }),
    {
      maxLength: 10,
    },
  )
  // Globs as they are, unusable ones too (the index must give the plain loop's answer whatever it holds).
  .map((specs) => specs.map(({ globs, ...spec }) => makeRule({ ...spec, conditions: { files: globs } })));

describe("new files against an index of the rules' globs", () => {
  test("property: the same matches, files and globs as trying every rule against every file", () => {
    fc.assert(
      fc.property(rules, fc.array(fc.array(file, { maxLength: 4 }), { maxLength: 4 }), (ruleSet, batches) => {
        const indexed = new Map<string, FileMatch>();
        const plain = new Map<string, FileMatch>();
        for (const batch of batches) {
          matchNewFiles(ruleSet, batch, indexed);
          plainMatchNewFiles(ruleSet, batch, plain);
          expect([...indexed]).toEqual([...plain]);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("property: a glob's fixed parts are had by every file it matches", () => {
    fc.assert(
      fc.property(glob, fc.array(file, { maxLength: 20 }), (pattern, files) => {
        const index = globIndex<string>();
        index.add([pattern], "rule");
        for (const path of files) {
          const found = new Set<string>();
          index.collect(path, found);
          if (ruleGlob(pattern).match(path))
            expect(found.has("rule") || index.everywhere.includes("rule"), `${pattern} matches ${path}`).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
  });

  test("globs are filed by their leading folders, else their file name or extension; the others are tried everywhere", () => {
    const index = globIndex<string>();
    index.add(["src/mod-1/**/*.ts", "src/mod-1/**/*.tsx"], "folder");
    index.add(["{lib,test}/*.js"], "braces");
    index.add(["**/*.md"], "extension");
    index.add(["Makefile"], "name");
    index.add(["**/*", "docs/**"], "anywhere");
    index.add(["!src/**"], "negated");
    index.add([""], "nothing");
    const found = (path: string) => {
      const into = new Set<string>();
      index.collect(path, into);
      return [...into].sort();
    };
    expect(found("src/mod-1/a/b.ts")).toEqual(["folder"]);
    expect(found("src/mod-2/a/b.ts")).toEqual([]);
    expect(found("test/x.js")).toEqual(["braces"]);
    expect(found("a/b/README.md")).toEqual(["extension"]);
    expect(found("tools/Makefile")).toEqual(["name"]);
    expect(index.everywhere).toEqual(["anywhere", "negated"]);
  });
});
