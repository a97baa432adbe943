/**
 * A class also matches its own text, as micromatch reads it: folders named
 * `[locale]` or `[id]` (Next.js, SvelteKit) match `app/[locale]/**`.
 * micromatch is the oracle wherever the plugin reads the syntax as it does;
 * where the plugin reads it otherwise on purpose, the difference is asserted.
 */
import fc from "fast-check";
import micromatch from "micromatch";
import { describe, expect, test } from "vitest";
import { globIndex } from "../../src/glob/index-by-part.js";
import type { StepCounter } from "../../src/glob/pattern.js";
import { matchingGlob, ruleGlob } from "../../src/glob/rule-glob.js";

const matches = (glob: string, file: string) => matchingGlob(file, [glob]) === glob;
/** micromatch as rule globs are read: a glob without a slash at any depth. */
const reference = (glob: string, file: string) =>
  micromatch.isMatch(file, glob.includes("/") ? glob : `**/${glob}`, { dot: true });

describe("a class also matches its own text, as micromatch reads it", () => {
  test.each([
    // [glob, file, matches]
    ["app/[locale]/**/*.tsx", "app/[locale]/about/page.tsx", true],
    ["app/[locale]/**/*.tsx", "app/l/page.tsx", true], // still a class: one of l, o, c, a, e
    ["app/[locale]/**/*.tsx", "app/locale/page.tsx", false],
    ["src/routes/[id]/+page.svelte", "src/routes/[id]/+page.svelte", true],
    ["src/routes/[id]/+page.svelte", "src/routes/d/+page.svelte", true],
    ["src/routes/[id]/+page.svelte", "src/routes/id/+page.svelte", false],
    ["src/routes/\\[id\\]/+page.svelte", "src/routes/[id]/+page.svelte", true], // escaped: the folder only
    ["src/routes/\\[id\\]/+page.svelte", "src/routes/i/+page.svelte", false],
    ["x/[id=integer]/*", "x/[id=integer]/a", true], // a SvelteKit matcher: no micromatch character in it
    ["x/[id]", "x/[i", false],
    ["x/[id]", "x/[id]x", false],
    ["x/[id]*", "x/[id].ts", true],
    ["x/*[id]", "x/a[id]", true],
    ["x/[a][b]", "x/ab", true],
    ["x/[a][b]", "x/[a]b", true],
    ["x/[a][b]", "x/a[b]", true],
    ["x/[a][b]", "x/[a][b]", true],
    // The greedy algorithm alone would miss this one: the class's text first, then `b]` found too late.
    ["x/*[ab]*b]", "x/[ab]", true],
    ["x/[a b]", "x/[a b]", true],
    ["x/[a,b]", "x/[a,b]", true],
    ["x/[é]", "x/[é]", true],
    ["x/{[id],y}", "x/[id]", true],
    ["x/{[id],y}", "x/y", true],
    ["[id]", "a/[id]", true], // without a slash: at any depth
    ["[id]", "a/i", true],
    ["./[id]", "[id]", true],
    ["./[id]", "a/[id]", false],
    // Ranges, `^`, a `[` or `]` inside: micromatch reads these as regular-expression syntax, not as text.
    ["x/[a-z]*", "x/q1", true],
    ["x/[a-z]*", "x/[a-z]1", false],
    ["x/[a-c]?", "x/bz", true],
    ["x/[^id]", "x/q", true],
    ["x/[^id]", "x/i", false],
    ["x/[^id]?", "x/[^", true], // `[` is not i or d
    ["x/[[]?", "x/[a", true], // `[[]` is the class of `[`
    ["x/[[]?", "x/[[]a", false],
    ["x/[]a]", "x/]", true], // `]` first is a member
    ["x/[]a]?", "x/[]a]b", false],
    ["x/[\\]i]?", "x/]q", true],
    ["x/[\\]i]?", "x/[\\]i]q", false],
    ["x/[[:alpha:]]?", "x/[[:alpha:]]q", false],
    ["x/[...slug]/*", "x/[...slug]/a", false], // `.`: write `\[...slug\]` for the folder
    ["x/[[lang]]/*", "x/[[lang]]/a", false],
  ])("%s against %s → %s, as micromatch", (glob, file, expected) => {
    expect(matches(glob, file)).toBe(expected);
    expect(reference(glob, file)).toBe(expected);
  });

  test("where the plugin reads the syntax otherwise on purpose, micromatch differs", () => {
    // `[!…]` negates, as in Bash, VS Code and minimatch; micromatch reads `!` as a member and adds the class's text.
    expect([matches("x/[!id]", "x/q"), reference("x/[!id]", "x/q")]).toEqual([true, false]);
    expect([matches("x/[!id]", "x/i"), reference("x/[!id]", "x/i")]).toEqual([false, true]);
    expect([matches("x/[!id]", "x/[!id]"), reference("x/[!id]", "x/[!id]")]).toEqual([false, true]);
    // A class never holds a `/`: `[a/b]` is the folder `[a` and the name `b]`.
    expect([matches("x/[a/b]", "x/a"), reference("x/[a/b]", "x/a")]).toEqual([false, true]);
    expect([matches("x/[a/b]", "x/[a/b]"), reference("x/[a/b]", "x/[a/b]")]).toEqual([true, true]);
    // A backslash always escapes: `\b` is `b` (in micromatch's regular expression, a backspace).
    expect([matches("x/[a\\b]?", "x/bq"), reference("x/[a\\b]?", "x/bq")]).toEqual([true, false]);
    // micromatch also matches a path written exactly as the whole glob; the plugin reads the glob only as a glob.
    expect([matches("x/[a-z]", "x/[a-z]"), reference("x/[a-z]", "x/[a-z]")]).toEqual([false, true]);
    expect([matches("x/[...slug]", "x/[...slug]"), reference("x/[...slug]", "x/[...slug]")]).toEqual([false, true]);
    expect(matches("x/\\[...slug\\]", "x/[...slug]")).toBe(true);
  });

  // Classes whose text micromatch also matches, classes it does not, and the plain pieces around them.
  const piece = fc.constantFrom(
    ...["[id]", "[ab]", "[x]", "[a,b]", "[a!b]", "[a-z]", "[^a]", "[]a]", "[[]", "[\\]a]", "[b-d]"],
    ...["*", "?", "a", "b", "i", "x", "-", "!", "[", "]", "\\[", "\\]"],
  );
  const segment = fc.array(piece, { minLength: 1, maxLength: 5 }).map((pieces) => pieces.join(""));
  const glob = fc
    .array(fc.oneof(segment, segment, fc.constant("**")), { minLength: 1, maxLength: 3 })
    .map((segments) => segments.join("/"))
    .filter(
      (g) =>
        !g.includes("***") &&
        // Not the syntax read otherwise on purpose: a `!` negation, a class across a `/`, micromatch's `[]` + `?`.
        !g.startsWith("!") &&
        !g.includes("[!") &&
        !/(^|[^\\])\[[^\]]*\//.test(g) &&
        !/\[\](?!a\])/.test(g),
    );
  const pathSegment = fc
    .array(fc.constantFrom("[id]", "[ab]", "[x]", "[a,b]", "[a!b]", "i", "a", "b", "d", "x", "[", "]", "-", "!"), {
      minLength: 1,
      maxLength: 4,
    })
    .map((pieces) => pieces.join(""));
  const path = fc.array(pathSegment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join("/"));

  test("property: bracketed names and classes agree with micromatch (but for a path written as the whole glob)", () => {
    fc.assert(
      fc.property(glob, path, (g, p) => {
        fc.pre(p !== g);
        expect(matches(g, p), `file ${JSON.stringify(p)} glob ${JSON.stringify(g)}`).toBe(reference(g, p));
      }),
      { numRuns: 4000 },
    );
  });

  test("property: every file a bracket glob matches has one of its fixed parts", () => {
    fc.assert(
      fc.property(glob, fc.array(path, { maxLength: 20 }), (g, files) => {
        const index = globIndex<string>();
        index.add([g], "rule");
        for (const file of files) {
          const found = new Set<string>();
          index.collect(file, found);
          if (ruleGlob(g).match(file))
            expect(found.has("rule") || index.everywhere.includes("rule"), `${g} matches ${file}`).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe("the glob index files a class as the class, never as its text", () => {
  const partsOf = (glob: string) => ruleGlob(glob).fixed;

  test("a bracketed folder ends the fixed folders; an escaped one is part of them", () => {
    expect(partsOf("app/[locale]/**/*.tsx")).toEqual([{ kind: "prefix", key: "app" }]);
    expect(partsOf("app/\\[locale\\]/**")).toEqual([{ kind: "prefix", key: "app/[locale]" }]);
    expect(partsOf("**/[id]")).toBe("any");
    expect(partsOf("**/\\[id\\]")).toEqual([{ kind: "name", key: "[id]" }]);
    expect(partsOf("**/[id].ts")).toEqual([{ kind: "extension", key: "ts" }]);
    expect(partsOf("[id]/page.tsx")).toEqual([{ kind: "name", key: "page.tsx" }]);
  });

  test("a rule for app/[locale]/** is found for the folder [locale] and for a one-letter folder", () => {
    const index = globIndex<string>();
    index.add(["app/[locale]/**/*.tsx"], "locale");
    index.add(["src/routes/[id]/+page.svelte"], "page");
    for (const [file, rule] of [
      ["app/[locale]/about/page.tsx", "locale"],
      ["app/e/page.tsx", "locale"],
      ["src/routes/[id]/+page.svelte", "page"],
      ["src/routes/i/+page.svelte", "page"],
    ] as const) {
      const found = new Set<string>();
      index.collect(file, found);
      expect(found.has(rule), file).toBe(true);
      expect(ruleGlob(rule === "locale" ? "app/[locale]/**/*.tsx" : "src/routes/[id]/+page.svelte").match(file)).toBe(
        true,
      );
    }
  });
});

describe("matching stays bounded when a class may match its own text", () => {
  const LONG = 4096;
  const bound = (glob: string, path: string) => 4 * (path.length + 1) * (glob.length + 1);
  const steps = (glob: string, path: string) => {
    const counter: StepCounter = { steps: 0 };
    return { matched: ruleGlob(glob).match(path, counter), steps: counter.steps };
  };

  test("stars between classes against 4,096 characters of their text: false, within path × glob steps", () => {
    const cases: Array<[string, string]> = [
      ["*[ab]*[ab]*[ab]*[ab]*[ab]*c*", "[ab]".repeat(LONG / 4)],
      ["*[abcdefgh]*[abcdefgh]*[abcdefgh]*z*", "[abcdefgh]".repeat(LONG / 10)],
      [`*${"[ab]".repeat(30)}z*`, "[ab]".repeat(LONG / 4)],
      [`*${"[a]*".repeat(30)}z*`, "[a]".repeat(LONG / 3)],
      [
        "**/*[ab]*[ab]*/**/*[ab]*c*/**",
        Array(LONG / 8)
          .fill("[ab][ab]")
          .join("/"),
      ],
    ];
    for (const [glob, path] of cases) {
      const result = steps(glob, path);
      expect(result.matched, glob).toBe(false);
      expect(result.steps, glob).toBeGreaterThan(LONG);
      expect(result.steps, glob).toBeLessThanOrEqual(bound(glob, path));
    }
  });

  test("property: long paths of class text against globs of classes and stars stay within the bound", () => {
    const part = fc.constantFrom("[ab]", "[a]", "*", "a", "b", "]", "[", "/", "**/");
    const hardGlob = fc.array(part, { minLength: 1, maxLength: 30 }).map((parts) => parts.join(""));
    const motif = fc.array(fc.constantFrom("[ab]", "[a]", "a", "b", "[", "]", "/"), { minLength: 1, maxLength: 6 });
    const longPath = motif.map((m) => m.join("").repeat(LONG).slice(0, LONG));
    fc.assert(
      fc.property(hardGlob, longPath, (glob, path) => {
        expect(steps(glob, path).steps, glob).toBeLessThanOrEqual(bound(glob, path));
      }),
      { numRuns: 300 },
    );
  });
});
