import fc from "fast-check";
import micromatch from "micromatch";
import { describe, expect, test } from "vitest";
import { activeRulesAmong, whyRuleApplies, whyRuleDoesNotApply } from "../../src/select/active.js";
import { activationOf } from "../../src/select/rule-set.js";
import { ruleGlob } from "../../src/glob/rule-glob.js";
import { reasonText, type ActivationReason } from "../../src/select/reasons.js";
import { whyText } from "../support/activation.js";
import { makeRule } from "../support/rules.js";

const withFiles = (...files: string[]) => ({ files });
const componentRule = makeRule({
  name: "my-rule",
  globs: ["src/components/**/*.ts"],
  content: "This is a rule for TypeScript components.",
});

describe("the spec's selection scenarios", () => {
  test("Loading a markdown with metadata rule: applies when src/components/button.ts is in context", () => {
    expect(whyText(componentRule, withFiles("src/components/button.ts"))).toBe(
      "file src/components/button.ts matched src/components/**/*.ts",
    );
    expect(activeRulesAmong([componentRule], withFiles("src/components/button.ts")).map((a) => a.rule.name)).toEqual([
      "my-rule",
    ]);
  });

  test("Loading a markdown with metadata rule that does not apply: src/utils/helpers.js", () => {
    expect(whyText(componentRule, withFiles("src/utils/helpers.js"))).toBeUndefined();
    expect(activeRulesAmong([componentRule], withFiles("src/utils/helpers.js"))).toEqual([]);
  });

  test("Loading a rule with no metadata: applies unconditionally, even with no files", () => {
    const rule = makeRule({ name: "another-rule" });
    expect(whyText(rule, withFiles())).toBe("always");
    expect(activeRulesAmong([rule], withFiles())).toEqual([{ rule, reason: { kind: "always" } }]);
  });
});

describe("activation modes", () => {
  test("alwaysApply: true with globs always applies", () => {
    const rule = makeRule({ alwaysApply: true, globs: ["src/**/*.ts"] });
    expect(activationOf(rule)).toBe("always");
    expect(whyText(rule, withFiles())).toBe("always");
    expect(whyText(rule, withFiles("README.md"))).toBe("always");
  });

  test("alwaysApply: false without globs does not apply by default", () => {
    const manual = makeRule({ name: "manual", alwaysApply: false });
    expect(activationOf(manual)).toBe("manual");
    expect(whyText(manual, withFiles("src/app.ts"))).toBeUndefined();
    expect(whyRuleDoesNotApply(manual, withFiles())).toBe("manual: applies only when the prompt mentions @manual");
  });

  test("alwaysApply: false with a description is on request, not delivered", () => {
    const rule = makeRule({ alwaysApply: false, description: "How to write migrations" });
    expect(activationOf(rule)).toBe("on-request");
    expect(whyText(rule, withFiles("a.ts"))).toBeUndefined();
  });

  test("alwaysApply: false with globs applies when a file matches", () => {
    const rule = makeRule({ alwaysApply: false, globs: ["*.ts"] });
    expect(whyText(rule, withFiles("x/y.ts"))).toBe("file x/y.ts matched *.ts");
  });

  test("a glob rule does not apply when no file is in context (session creation)", () => {
    expect(whyText(makeRule({ globs: ["**/*"] }), withFiles())).toBeUndefined();
  });

  test("reason names the file and the glob that matched", () => {
    const rule = makeRule({ globs: ["lib/**", "src/**/*.ts"] });
    expect(whyText(rule, withFiles("README.md", "src/app.ts"))).toBe("file src/app.ts matched src/**/*.ts");
    expect(whyRuleDoesNotApply(rule, withFiles("README.md"))).toBe("files: no file matched lib/**, src/**/*.ts");
    expect(whyRuleDoesNotApply(rule, withFiles("src/app.ts"))).toBeUndefined();
  });

  test("activeRulesAmong keeps the given order and accepts any iterable of files", () => {
    const a = makeRule({ name: "a", globs: ["*.md"] });
    const b = makeRule({ name: "b" });
    const c = makeRule({ name: "c", globs: ["*.ts"] });
    const active = activeRulesAmong([c, b, a], { files: new Set(["docs/x.md", "y.ts"]) });
    expect(active.map((x) => [x.rule.name, reasonText(x.reason)])).toEqual([
      ["c", "file y.ts matched *.ts"],
      ["b", "always"],
      ["a", "file docs/x.md matched *.md"],
    ]);
  });

  test("a mention activates any rule", () => {
    const rule = makeRule({ name: "manual", alwaysApply: false });
    expect(whyText(rule, { files: [], mentioned: new Set(["manual"]) })).toBe("mention: @manual in the prompt");
  });

  test("keywords: whole words of the prompt; match: all needs every condition", () => {
    const any = makeRule({ globs: ["*.sql"], keywords: ["migration"] });
    expect(whyText(any, { files: [], prompt: "Write a migration" })).toBe('keyword "migration" in the prompt');
    expect(whyText(any, { files: [], prompt: "migrations" })).toBeUndefined();
    const all = makeRule({ globs: ["*.sql"], keywords: ["migration"], match: "all" });
    expect(whyText(all, { files: [], prompt: "a migration" })).toBeUndefined();
    expect(whyText(all, { files: ["db/1.sql"], prompt: "a migration" })).toBe(
      'file db/1.sql matched *.sql and keyword "migration" in the prompt',
    );
    expect(whyRuleApplies(all, { files: ["db/1.sql"], prompt: "a migration" })).toEqual({
      kind: "conditions",
      met: [
        { kind: "file", file: "db/1.sql", glob: "*.sql" },
        { kind: "keyword", keyword: "migration" },
      ],
    });
  });
});

describe("reasons", () => {
  test("are values; reasonText words each kind as the debug log and the session report print it", () => {
    const file = { kind: "file", file: "src/a.ts", glob: "src/**" } as const;
    const keyword = { kind: "keyword", keyword: "deploy" } as const;
    const cases: Array<[ActivationReason, string]> = [
      [{ kind: "always" }, "always"],
      [{ kind: "mention", rule: "release" }, "mention: @release in the prompt"],
      [{ kind: "conditions", met: [file] }, "file src/a.ts matched src/**"],
      [{ kind: "conditions", met: [keyword] }, 'keyword "deploy" in the prompt'],
      [{ kind: "conditions", met: [file, keyword] }, 'file src/a.ts matched src/** and keyword "deploy" in the prompt'],
      [{ kind: "rule-tool" }, "read with the rule tool"],
    ];
    for (const [reason, text] of cases) expect(reasonText(reason)).toBe(text);
  });

  test("a rule activated earlier keeps its reason, whatever the context says now", () => {
    const rule = makeRule({ name: "ts", globs: ["*.ts"] });
    const earlier: ActivationReason = { kind: "rule-tool" };
    expect(whyRuleApplies(rule, { files: ["a.ts"], activated: new Map([["ts", earlier]]) })).toBe(earlier);
    expect(
      whyRuleApplies(rule, { files: [], fileMatches: new Map([["ts", { kind: "file", file: "b.ts", glob: "*.ts" }]]) }),
    ).toEqual({
      kind: "conditions",
      met: [{ kind: "file", file: "b.ts", glob: "*.ts" }],
    });
  });
});

describe("glob matching", () => {
  const applies = (glob: string, file: string) =>
    whyRuleApplies(makeRule({ globs: [glob] }), withFiles(file)) !== undefined;

  test("`*.ts` matches at any depth", () => {
    expect(applies("*.ts", "a.ts")).toBe(true);
    expect(applies("*.ts", "src/a.ts")).toBe(true);
    expect(applies("*.ts", "src/deep/er/a.ts")).toBe(true);
    expect(applies("*.ts", "src/a.tsx")).toBe(false);
    expect(applies("*.ts", "a.ts/readme.md")).toBe(false);
  });

  test("a glob with a slash is anchored at the project root", () => {
    expect(applies("src/*.ts", "src/a.ts")).toBe(true);
    expect(applies("src/*.ts", "pkg/src/a.ts")).toBe(false);
    expect(applies("src/*.ts", "src/deep/a.ts")).toBe(false);
    expect(applies("src/**/*.ts", "src/a.ts")).toBe(true);
    expect(applies("src/**/*.ts", "src/x/y/a.ts")).toBe(true);
  });

  test("a leading ./ is ignored", () => {
    expect(applies("./src/*.ts", "src/a.ts")).toBe(true);
  });

  test("brace expansion", () => {
    expect(applies("src/{a,b}/**", "src/a/x.ts")).toBe(true);
    expect(applies("src/{a,b}/**", "src/b/y/z.md")).toBe(true);
    expect(applies("src/{a,b}/**", "src/c/x.ts")).toBe(false);
    expect(applies("*.{ts,tsx}", "ui/button.tsx")).toBe(true);
    expect(applies("*.{ts,tsx}", "ui/button.js")).toBe(false);
  });

  test("dot files and dot folders match", () => {
    expect(applies("*.yml", ".github/workflows/ci.yml")).toBe(true);
    expect(applies(".env*", ".env.local")).toBe(true);
    expect(applies("**/*.json", ".vscode/settings.json")).toBe(true);
    expect(applies("config/*", "config/.hidden")).toBe(true);
  });

  test("micromatch's own `basename` option is wrong for globs with a slash; rules are not", () => {
    // Why the property below uses `basename: true` only for globs without a slash.
    expect(micromatch.isMatch("b/ab", "b/**", { dot: true, basename: true })).toBe(false);
    expect(applies("b/**", "b/ab")).toBe(true);
    expect(micromatch.isMatch("ba/b", "?/**", { dot: true, basename: true })).toBe(true);
    expect(applies("?/**", "ba/b")).toBe(false);
  });

  // Normalised project-relative paths: no `.` or `..` segments.
  const segment = fc.stringMatching(/^[ab.]{1,3}$/).filter((s) => s !== "." && s !== "..");
  const file = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
  const token = fc.constantFrom("a", "b", ".", "*", "**", "?", "{a,b}", "[ab]");
  // Three or more stars in a row are not a glob anyone writes (micromatch itself mis-reads `****a.a`).
  const sane = (g: string) => !g.includes("***");
  const slashless = fc
    .array(token, { minLength: 1, maxLength: 6 })
    .map((tokens) => tokens.join(""))
    .filter(sane);
  const withSlash = fc
    .array(fc.oneof(token, fc.constant("/")), { minLength: 1, maxLength: 7 })
    .map((tokens) => tokens.join(""))
    // Globs as rule authors write them: relative, no empty or trailing segment.
    // A leading `./` has its own test below.
    .filter(
      (g) =>
        sane(g) &&
        g.includes("/") &&
        !g.startsWith("/") &&
        !g.startsWith("./") &&
        !g.endsWith("/") &&
        !g.includes("//"),
    );

  test("property: a glob without a slash agrees with micromatch.isMatch(file, glob, { dot: true, basename: true })", () => {
    fc.assert(
      fc.property(file, slashless, (f, g) => {
        const reference = micromatch.isMatch(f, g, { dot: true, basename: true });
        expect(applies(g, f), `file ${JSON.stringify(f)} glob ${JSON.stringify(g)}`).toBe(reference);
      }),
      { numRuns: 3000 },
    );
  });

  test("property: a glob with a slash agrees with micromatch.isMatch(file, glob, { dot: true })", () => {
    fc.assert(
      fc.property(file, withSlash, (f, g) => {
        const reference = micromatch.isMatch(f, g, { dot: true });
        expect(applies(g, f), `file ${JSON.stringify(f)} glob ${JSON.stringify(g)}`).toBe(reference);
      }),
      { numRuns: 3000 },
    );
  });

  test("a './'-prefixed glob without another slash is anchored at the project root (`./Makefile` must not match packages/x/Makefile)", () => {
    // `./src/*.ts` is anchored (test above); `./Makefile` is too: src/glob/rule-glob.ts decides whether
    // the glob has a slash before it strips `./`, so it does not become `**/Makefile`.
    expect(applies("./Makefile", "Makefile")).toBe(true);
    expect(applies("./Makefile", "packages/x/Makefile")).toBe(false);
  });
});

describe("globs from untrusted rule files", () => {
  // Rules holding globs as they are, unusable ones too: as a rule object could, whatever parsing leaves out.
  const withGlobs = (globs: string[], name?: string) => makeRule({ name, conditions: { files: globs } });
  const applies = (globs: string[], ...files: string[]) => whyText(withGlobs(globs), withFiles(...files));

  test("an unusable glob never matches and never throws; the rule's other globs still match", () => {
    expect(applies(["./", "+(a|b)", "src/**/*.ts"], "a", "src/a.ts")).toBe("file src/a.ts matched src/**/*.ts");
    expect(applies(["./", "", "/", "[z-a]", "{1..100000}"], "a", "b/c", "/abs/d")).toBeUndefined();
    expect(() => activeRulesAmong([withGlobs(["./"]), makeRule({ name: "other" })], withFiles("x"))).not.toThrow();
    expect(
      activeRulesAmong([withGlobs(["./"]), makeRule({ name: "other" })], withFiles("x")).map((a) => a.rule.name),
    ).toEqual(["other"]);
  });

  test("a glob that makes regular expressions backtrack is answered in a bounded number of steps", () => {
    const glob = "**/a*a*a*a*a*a*a*a*a*a*a*a*b";
    const name = `src/${"a".repeat(4096)}`;
    expect(applies([glob], name)).toBeUndefined();
    const counter = { steps: 0 };
    expect(ruleGlob(glob).match(name, counter)).toBe(false);
    expect(counter.steps).toBeLessThanOrEqual(4 * (name.length + 1) * (glob.length + 1));
  });

  test("a leading ! matches the files the rest of the glob does not", () => {
    expect(applies(["!src/**"], "src/a.ts")).toBeUndefined();
    expect(applies(["!src/**"], "src/a.ts", "docs/b.md")).toBe("file docs/b.md matched !src/**");
    expect(micromatch.isMatch("docs/b.md", "!src/**", { dot: true })).toBe(true);
  });

  test("absolute globs match files outside the project only, relative globs files inside only", () => {
    expect(applies(["/etc/**"], "/etc/hosts")).toBe("file /etc/hosts matched /etc/**");
    expect(applies(["/etc/**"], "etc/hosts")).toBeUndefined();
    expect(applies(["**/*.conf", "*.conf"], "/etc/x.conf")).toBeUndefined();
  });
});
