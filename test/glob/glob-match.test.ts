/**
 * The glob matcher: what globs mean, which cannot be used and why, and that
 * no glob can make matching slow. The bound is proved by counting the
 * matcher's steps, never with a clock.
 */
import fc from "fast-check";
import micromatch from "micromatch";
import { describe, expect, test } from "vitest";
import { compileGlob } from "../../src/glob/compile.js";
import { expandGlob, MAX_ALTERNATIVES } from "../../src/glob/expand.js";
import type { StepCounter } from "../../src/glob/pattern.js";
import { globProblem, matchingGlob, ruleGlob } from "../../src/glob/rule-glob.js";

const matches = (glob: string, file: string) => matchingGlob(file, [glob]) === glob;

/** micromatch as rule globs used it before: a glob without a slash at any depth. */
const reference = (glob: string, file: string) =>
  micromatch.isMatch(file, glob.includes("/") ? glob : `**/${glob}`, { dot: true });

describe("what globs mean", () => {
  test.each([
    // [glob, file, matches]
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**/*.ts", "lib/a.ts", false],
    ["*.ts", "a/b/c.ts", true],
    ["*.ts", "a.tsx", false],
    ["?", "a", true],
    ["?", "ab", false],
    ["a?c", "a/c", false],
    ["*", "a/b", true], // any depth: the file name
    ["x/*", "x/y/z", false],
    ["*.yml", ".github/workflows/ci.yml", true], // dot files and folders
    [".env*", ".env.local", true],
    ["config/*", "config/.hidden", true],
  ])("%s against %s → %s, as micromatch", (glob, file, expected) => {
    expect(matches(glob, file)).toBe(expected);
    expect(reference(glob, file)).toBe(expected);
  });

  test("braces: lists, nesting, an empty option; a brace without a comma or range is literal", () => {
    expect(matches("*.{ts,tsx}", "ui/a.tsx")).toBe(true);
    expect(matches("*.{ts,tsx}", "ui/a.js")).toBe(false);
    expect(matches("{src,lib/{a,b}}/**", "lib/b/x.ts")).toBe(true);
    expect(matches("{src,lib/{a,b}}/**", "lib/c/x.ts")).toBe(false);
    expect(matches("a{,.min}.js", "a.js")).toBe(true);
    expect(matches("a{,.min}.js", "a.min.js")).toBe(true);
    expect(matches("{a}", "{a}")).toBe(true);
    expect(matches("{a}", "a")).toBe(false);
    expect(matches("{a,b", "{a,b")).toBe(true);
    expect(matches("\\{a,b\\}", "{a,b}")).toBe(true);
    expect(matches("{a\\,b,c}", "a,b")).toBe(true);
    expect(expandGlob("{a,b}{1..2}")).toEqual(["a1", "a2", "b1", "b2"]);
  });

  test("ranges: numbers (reversed, zero-padded, stepped) and letters", () => {
    expect(expandGlob("f{1..5}")).toEqual(["f1", "f2", "f3", "f4", "f5"]);
    expect(expandGlob("{3..1}")).toEqual(["3", "2", "1"]);
    expect(expandGlob("{08..10}")).toEqual(["08", "09", "10"]);
    expect(expandGlob("{1..10..4}")).toEqual(["1", "5", "9"]);
    expect(expandGlob("{-1..1}")).toEqual(["-1", "0", "1"]);
    expect(expandGlob("{a..c}")).toEqual(["a", "b", "c"]);
    expect(expandGlob("{1..a}")).toEqual(["{1..a}"]);
    expect(matches("v{1..3}/*.md", "v2/notes.md")).toBe(true);
    expect(matches("v{1..3}/*.md", "v4/notes.md")).toBe(false);
  });

  test("classes: sets, ranges, negation with ! or ^, POSIX names, ] first, escapes", () => {
    expect(matches("[abc].ts", "b.ts")).toBe(true);
    expect(matches("[a-c].ts", "d.ts")).toBe(false);
    expect(matches("[!a].ts", "b.ts")).toBe(true);
    expect(matches("[!a].ts", "a.ts")).toBe(false);
    expect(matches("[^a].ts", "a.ts")).toBe(false);
    expect(matches("[[:upper:]]*.md", "README.md")).toBe(true);
    expect(matches("[[:upper:]]*.md", "readme.md")).toBe(false);
    expect(matches("[[:digit:]x]", "x")).toBe(true);
    expect(matches("[]]", "]")).toBe(true);
    expect(matches("[a-]", "-")).toBe(true);
    expect(matches("[\\]]", "]")).toBe(true);
    expect(matches("[a", "[a")).toBe(true); // never closed: literal
    // A class never holds a slash: `[` and `]` across one are literal.
    expect(matches("a[/]b", "a[/]b")).toBe(true);
    expect(matches("a[/]b", "a/b")).toBe(false);
  });

  test("escapes make wildcards literal; an escaped slash still separates folders", () => {
    expect(matches("\\*.md", "*.md")).toBe(true);
    expect(matches("\\*.md", "a.md")).toBe(false);
    expect(matches("\\?", "?")).toBe(true);
    expect(matches("\\[a]", "[a]")).toBe(true);
    expect(matches("a\\/b", "a/b")).toBe(true);
  });

  test("`**`: zero or more folders as a whole segment, a star inside one", () => {
    expect(matches("**/x.ts", "x.ts")).toBe(true);
    expect(matches("a/**/b", "a/b")).toBe(true);
    expect(matches("a/**/b", "a/x/y/b")).toBe(true);
    expect(matches("a/**/**/b", "a/b")).toBe(true);
    expect(matches("x/**", "x")).toBe(true);
    expect(matches("x/**", "x/y/z")).toBe(true);
    expect(matches("x/**", "xy")).toBe(false);
    expect(matches("a**b", "axxb")).toBe(true);
    expect(matches("a/**b", "a/x/b")).toBe(false);
    // As micromatch: a trailing `/**` after a star needs one more folder.
    expect(matches("*/**", "x/y")).toBe(true);
    expect(matches("*/**", "x")).toBe(false);
    expect(reference("*/**", "x")).toBe(false);
  });

  test("extglobs @(…) and ?(…) are alternatives; +(…), *(…) and !(…) cannot be used", () => {
    expect(matches("*.@(js|ts)", "a/b.ts")).toBe(true);
    expect(matches("*.@(js|ts)", "a/b.md")).toBe(false);
    expect(matches("?(x.)config.js", "config.js")).toBe(true);
    expect(matches("?(x.)config.js", "x.config.js")).toBe(true);
    expect(matches("?(x.)config.js", "y.config.js")).toBe(false);
    for (const glob of ["+(a|b)", "*(a)", "!(a)", "src/a!(b)/**"]) {
      expect(globProblem(glob), glob).toMatch(/^the extglob "[+*!]\(…\)" is not supported/);
      expect(matches(glob, "a")).toBe(false);
    }
  });

  test("parentheses without @ or ? before them, `|` and a `+` are literal; micromatch reads (a|b) as a choice", () => {
    expect(matches("x/(a|b)", "x/(a|b)")).toBe(true);
    expect([matches("x/(a|b)", "x/a"), micromatch.isMatch("x/a", "x/(a|b)")]).toEqual([false, true]);
    expect(matches("src/routes/+page.svelte", "src/routes/+page.svelte")).toBe(true);
    expect(matches("x/a+b", "x/aab")).toBe(false);
    // A backslash always escapes the next character, a letter too: `\b` is `b`.
    expect([matches("x/a\\b", "x/ab"), micromatch.isMatch("x/ab", "x/a\\b")]).toEqual([true, false]);
  });

  test("a leading ! negates; !! negates back; `\\!` is a literal !", () => {
    expect(matches("!src/**", "lib/a.ts")).toBe(true);
    expect(matches("!src/**", "src/a.ts")).toBe(false);
    expect(micromatch.isMatch("lib/a.ts", "!src/**", { dot: true })).toBe(true);
    // Without a slash, the negated glob is matched at any depth like any other.
    expect(matches("!*.ts", "a/b.js")).toBe(true);
    expect(matches("!*.ts", "a/b.ts")).toBe(false);
    expect(matches("!!*.ts", "a/b.ts")).toBe(true);
    expect(matches("\\!x", "!x")).toBe(true);
  });

  test("./ anchors at the project root; absolute globs only match files outside the project", () => {
    expect(matches("./Makefile", "Makefile")).toBe(true);
    expect(matches("./Makefile", "packages/x/Makefile")).toBe(false);
    expect(matches("./src/*.ts", "src/a.ts")).toBe(true);
    expect(matches("/etc/**", "/etc/hosts")).toBe(true);
    expect(matches("/etc/**", "etc/hosts")).toBe(false);
    expect(matches("**/*.ts", "/etc/x.ts")).toBe(false);
    expect(matches("*.ts", "/etc/x.ts")).toBe(false);
    expect(matches("!src/**", "/etc/x")).toBe(false); // a relative glob says nothing about outside files
  });

  test("`*.*` is a name with a dot and something after it (micromatch's reading)", () => {
    expect(matches("*.*", "a.b")).toBe(true);
    expect(matches("*.*", "a.")).toBe(false);
    expect(reference("*.*", "a.")).toBe(false);
  });
});

describe("globs that cannot be used never match and say why", () => {
  test.each([
    ["./", 'nothing is left once "./" is removed'],
    ["././", 'nothing is left once "./" is removed'],
    ["", "it is empty"],
    ["!", "it is empty"],
    ["/", "it is only slashes and names no file"],
    ["///", "it is only slashes and names no file"],
    ["[[:letter:]]", "[:letter:] is not a known character class"],
    ["[z-a]", "the character range z-a is reversed"],
    ["{1..1000}", "the range {1..1000} has more than 256 items"],
    ["{a,b}".repeat(9), "its braces expand to more than 256 alternatives"],
    [`{${"x".repeat(100)},y}`.repeat(7), "its braces expand to more than 8192 characters"],
    ["a".repeat(1025), "it is longer than 1024 characters"],
    ["+(a)", 'the extglob "+(…)" is not supported; use {a,b} or @(a|b)'],
  ])("%j: %s", (glob, problem) => {
    expect(globProblem(glob)).toBe(problem);
    const counter: StepCounter = { steps: 0 };
    expect(ruleGlob(glob).match("a", counter)).toBe(false);
    expect(ruleGlob(glob).match("x/y/a", counter)).toBe(false);
    expect(counter.steps).toBe(0);
  });

  test("256 alternatives are still fine", () => {
    expect(globProblem("{a,b}".repeat(8))).toBeUndefined();
    expect(expandGlob("{a,b}".repeat(8))).toHaveLength(MAX_ALTERNATIVES);
  });

  test("no glob makes compiling or matching throw", () => {
    const char = fc.constantFrom(
      "a",
      "/",
      "*",
      "?",
      "[",
      "]",
      "{",
      "}",
      ",",
      ".",
      "!",
      "^",
      "-",
      "\\",
      "(",
      ")",
      "|",
      "@",
      "+",
      ":",
      "0",
      "9",
    );
    fc.assert(
      fc.property(
        fc.string({ unit: char, maxLength: 30 }),
        fc.string({ unit: fc.constantFrom("a", "/", ".", "["), maxLength: 12 }),
        (glob, file) => {
          const compiled = ruleGlob(glob);
          expect(typeof compiled.match(file)).toBe("boolean");
          expect(typeof compiled.match(`/${file}`)).toBe("boolean");
          expect(compiled.problem === undefined || compiled.problem.length > 0).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("matching time is bounded by the path and the glob, whatever they are", () => {
  const LONG = 4096;
  /**
   * Per alternative, the greedy algorithm tries each (path character, glob
   * token) pair at most once, and each (path segment, glob segment) pair at
   * most once; a step is one such try (or one character compared). So the
   * steps stay within a small constant × path length × glob length, times the
   * number of alternatives braces make, which is at most 256.
   */
  const bound = (glob: string, path: string) => 4 * (path.length + 1) * (glob.length + 1) * alternatives(glob);
  const alternatives = (glob: string) => {
    const expanded = expandGlob(glob.replace(/^!+/, ""));
    return typeof expanded === "string" ? 0 : expanded.length;
  };
  const steps = (glob: string, path: string) => {
    const counter: StepCounter = { steps: 0 };
    const matched = ruleGlob(glob).match(path, counter);
    return { matched, steps: counter.steps };
  };

  test("**/a*a*a*a*a*a*a*a*a*a*a*a*b against a 4,096-character name of a's: false, in bounded steps", () => {
    const glob = "**/a*a*a*a*a*a*a*a*a*a*a*a*b";
    const name = "a".repeat(LONG);
    const result = steps(glob, name);
    expect(result.matched).toBe(false);
    expect(result.steps).toBeLessThanOrEqual(bound(glob, name));
    expect(result.steps).toBeLessThanOrEqual(10 * LONG);
  });

  test("the hardest shapes stay within the bound: stars that must each retry, `**` between segments that almost match", () => {
    const cases: Array<[string, string]> = [
      [`*${"a".repeat(20)}b*`, "a".repeat(LONG)],
      [`*a*a*a*a*a*a*a*a*a*a*a*a*b*`, "a".repeat(LONG)],
      [
        "**/a/**/a/**/a/**/a/**/b/**",
        Array(LONG / 2)
          .fill("a")
          .join("/"),
      ],
      [
        "**/*a*a/**/*a*a*a*/**/*b*/**",
        Array(LONG / 8)
          .fill("aaaaaaa")
          .join("/"),
      ],
      [`${"{a,b}".repeat(8)}*a*a*a*a*c*`, "a".repeat(LONG)],
    ];
    for (const [glob, path] of cases) {
      const result = steps(glob, path);
      expect(result.matched, glob).toBe(false);
      expect(result.steps, glob).toBeGreaterThan(0);
      expect(result.steps, glob).toBeLessThanOrEqual(bound(glob, path));
    }
  });

  // Pathological pieces: many stars, repeated `**/`, `?`, classes and braces of a and b.
  const piece = fc.constantFrom(
    "a",
    "b",
    "*",
    "**",
    "**/",
    "/",
    "?",
    "[ab]",
    "[^a]",
    "[a-b]",
    "{a,b}",
    "a*",
    "*a",
    "*/",
  );
  const pathologicalGlob = fc.array(piece, { minLength: 1, maxLength: 40 }).map((pieces) => pieces.join(""));
  const motif = fc.string({ unit: fc.constantFrom("a", "b", "/"), minLength: 1, maxLength: 12 });
  const longPath = fc.oneof(
    motif.map((m) => m.repeat(Math.ceil(LONG / m.length)).slice(0, LONG)),
    fc.string({ unit: fc.constantFrom("a", "a", "a", "b", "/"), minLength: LONG, maxLength: LONG }),
    fc.constant("a".repeat(LONG)),
    fc.constant(`${"a/".repeat(LONG / 2 - 1)}ab`),
  );

  test("property: 4,096-character paths against pathological globs take at most 4 × path × glob × alternatives steps", () => {
    fc.assert(
      fc.property(pathologicalGlob, longPath, fc.boolean(), (glob, path, negate) => {
        const subject = negate ? `!${glob}` : glob;
        const result = steps(subject, path);
        expect(result.steps, `glob ${JSON.stringify(subject)}`).toBeLessThanOrEqual(bound(subject, path));
      }),
      { numRuns: 300 },
    );
  });

  // Short, normalised paths, where micromatch's regular expressions are quick.
  const shortPath = fc
    .array(fc.stringMatching(/^[ab]{1,3}$/), { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join("/"));
  const shortGlob = fc
    .array(piece, { minLength: 1, maxLength: 8 })
    .map((pieces) => pieces.join(""))
    // Globs as rule authors write them (as in active.test.ts): no `***`, relative, no empty or trailing segment.
    .filter((g) => !g.includes("***") && !g.startsWith("/") && !g.endsWith("/") && !g.includes("//"));

  test("property: on short inputs the pathological globs agree with micromatch", () => {
    fc.assert(
      fc.property(shortGlob, shortPath, (glob, path) => {
        expect(matches(glob, path), `file ${JSON.stringify(path)} glob ${JSON.stringify(glob)}`).toBe(
          reference(glob, path),
        );
      }),
      { numRuns: 3000 },
    );
  });
});

describe("compileGlob on its own", () => {
  test("anyDepth puts a `**` in front; the compiled glob matches paths as given", () => {
    const compiled = compileGlob("*.ts", { anyDepth: true });
    expect(compiled.ok && compiled.match("a/b.ts")).toBe(true);
    const anchored = compileGlob("*.ts");
    expect(anchored.ok && anchored.match("a/b.ts")).toBe(false);
  });

  test("a typical glob against a typical path costs a handful of steps", () => {
    const counter: StepCounter = { steps: 0 };
    expect(ruleGlob("src/**/*.ts").match("src/components/button/index.ts", counter)).toBe(true);
    expect(counter.steps).toBeLessThanOrEqual(10);
  });
});
