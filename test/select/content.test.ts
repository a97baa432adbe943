/**
 * Content conditions (issue 29): `fileContains` in the plugin's own rules and
 * Continue's `regex`, read by the common reader, matched against the text a
 * tool brought into the session, and combined with globs as `match` says.
 */
import { describe, expect, test } from "vitest";
import { activeRulesAmong, whyRuleApplies, whyRuleDoesNotApply } from "../../src/select/active.js";
import { contentHits, MAX_CONTENT_CHARS } from "../../src/select/content.js";
import { activationOf, ruleSetIndex } from "../../src/select/rule-set.js";
import type { ContentMatch } from "../../src/conditions/content.js";
import { reasonText } from "../../src/select/reasons.js";
import type { Rule } from "../../src/rule/rule.js";
import { parse } from "../support/parse.js";

const ruleOf = (text: string, name = "my-rule"): Rule => {
  const { rule, warnings } = parse(text, name);
  expect(warnings).toEqual([]);
  return rule as Rule;
};
const said = (warning?: { line?: number; message: string }) => `${warning?.line}: ${warning?.message}`;
const noDeadline = { now: () => 0, deadline: 1 };
const matchesOf = (rules: Rule[], texts: { file: string; text: string }[]) =>
  new Map(contentHits(rules, texts, new Set(), noDeadline).hits.map(({ rule, match }) => [rule, match]));
const applies = (rule: Rule, texts: { file: string; text: string }[], files = texts.map(({ file }) => file)) =>
  whyRuleApplies(rule, { files, contentMatches: matchesOf([rule], texts) });

describe("reading fileContains and regex", () => {
  test("a literal and a /regex/ make a conditional rule, each pattern kept as written", () => {
    const rule = ruleOf("---\nfileContains: [legacyFetch(, /import .* from 'lodash'/]\n---\nUse the new client.\n");
    expect(activationOf(rule)).toBe("conditional");
    expect(rule.conditions.content?.map(({ written }) => written)).toEqual([
      "legacyFetch(",
      "/import .* from 'lodash'/",
    ]);
  });

  test("Continue's regex: each item is a regular expression's body, not a literal", () => {
    const rule = ruleOf("---\nregex: ^import React\n---\nReact rules.\n");
    expect(rule.conditions.content?.map(({ written, kind }) => [written, kind])).toEqual([["^import React", "regex"]]);
    expect(applies(rule, [{ file: "src/a.tsx", text: "import React from 'react';\n" }])).toBeDefined();
    // `^` is the text's start, as Continue's RegExp over the whole file reads it.
    expect(applies(rule, [{ file: "src/b.tsx", text: "// header\nimport React from 'react';\n" }])).toBeUndefined();
  });

  test("an unusable pattern is left out with a warning at its line; the others still apply", () => {
    const { rule, warnings } = parse("---\nfileContains:\n  - /(?=a)b/\n  - TODO\n---\nBody.\n");
    expect(warnings.map(said)).toEqual([
      '3: content pattern "/(?=a)b/" in "fileContains" uses a lookahead "(?=…)": patterns are matched by a linear-time engine (RE2), which has no lookarounds; this pattern was ignored',
    ]);
    expect(rule?.conditions.content?.map(({ written }) => written)).toEqual(["TODO"]);
  });

  test("fail closed: a rule whose every pattern is unusable never applies more widely", () => {
    const alone = parse("---\nfileContains: /(?=a)b/\n---\nBody.\n");
    expect(activationOf(alone.rule as Rule)).toBe("manual");
    expect(said(alone.warnings.at(-1))).toContain(
      '2: no pattern of "fileContains" can be used, so the content condition was ignored and no file content activates the rule; it applies only when mentioned',
    );
    const described = parse("---\ndescription: Legacy code\nfileContains: /(?=a)b/\n---\nBody.\n");
    expect(activationOf(described.rule as Rule)).toBe("on-request");
    // With `match: all` the globs alone would widen it: they go too.
    const all = parse("---\nglobs: src/**\nmatch: all\nfileContains: /(?=a)b/\n---\nBody.\n");
    expect(all.rule?.conditions.files).toBeUndefined();
    expect(activationOf(all.rule as Rule)).toBe("manual");
    // With `match: any` the globs still apply by themselves.
    const any = parse("---\nglobs: src/**\nfileContains: /(?=a)b/\n---\nBody.\n");
    expect(any.rule?.conditions.files).toEqual(["src/**"]);
    expect(said(any.warnings.at(-1))).toContain("it applies only by its other conditions");
  });
});

describe("matching the text a tool brought in", () => {
  const legacy = () => ruleOf("---\nfileContains: legacyFetch(\n---\nUse the new client.\n", "legacy");

  test("applies when a file's text holds the pattern, with the file and pattern as the reason; not otherwise", () => {
    const rule = legacy();
    const reason = applies(rule, [{ file: "src/net.ts", text: "const a = legacyFetch(url);\n" }]);
    expect(reason && reasonText(reason)).toBe('file src/net.ts contains "legacyFetch("');
    expect(applies(rule, [{ file: "src/clean.ts", text: "const a = fetch(url);\n" }])).toBeUndefined();
    expect(whyRuleDoesNotApply(rule, { files: ["src/clean.ts"] })).toBe(
      'content: no file of the session seen containing "legacyFetch("',
    );
  });

  test("flags: i ignores case; m lets ^ start any line", () => {
    const rule = ruleOf("---\nfileContains: [/todo:/i, /^export default/m]\n---\nBody.\n");
    expect(applies(rule, [{ file: "a.ts", text: "// TODO: later\n" }])).toBeDefined();
    expect(applies(rule, [{ file: "b.ts", text: "const x = 1;\nexport default x;\n" }])).toBeDefined();
    expect(applies(rule, [{ file: "c.ts", text: "const x = 1;\n" }])).toBeUndefined();
  });

  test("match any: the globs or the content; match all: a file the globs match must hold it", () => {
    const any = ruleOf("---\nglobs: src/**/*.sql\nfileContains: DROP TABLE\n---\nBody.\n");
    expect(applies(any, [{ file: "notes.md", text: "DROP TABLE users;" }])).toBeDefined();
    expect(whyRuleApplies(any, { files: ["src/db/a.sql"] })).toBeDefined();
    const all = ruleOf("---\nglobs: src/**/*.sql\nmatch: all\nfileContains: DROP TABLE\n---\nBody.\n");
    expect(
      applies(all, [{ file: "notes.md", text: "DROP TABLE users;" }], ["notes.md", "src/db/a.sql"]),
    ).toBeUndefined();
    expect(whyRuleApplies(all, { files: ["src/db/a.sql"] })).toBeUndefined();
    const reason = applies(all, [{ file: "src/db/a.sql", text: "DROP TABLE users;" }]);
    expect(reason && reasonText(reason)).toBe(
      'file src/db/a.sql matched src/**/*.sql and file src/db/a.sql contains "DROP TABLE"',
    );
  });

  test("only the first MiB of a text is looked at", () => {
    const rule = legacy();
    const far = `${"x".repeat(MAX_CONTENT_CHARS)}\nlegacyFetch(`;
    expect(applies(rule, [{ file: "big.ts", text: far }])).toBeUndefined();
    expect(applies(rule, [{ file: "big.ts", text: `legacyFetch(${far}` }])).toBeDefined();
  });

  test("a file version seen before is not scanned again: its answer comes even past the deadline", () => {
    const rules = [legacy()];
    const text = { file: "src/net.ts", text: "legacyFetch(1)" };
    expect(contentHits(rules, [text], new Set(), noDeadline).hits).toHaveLength(1);
    const late = { now: () => 10, deadline: 1 };
    expect(contentHits(rules, [text], new Set(), late)).toEqual({
      hits: [{ rule: "legacy", match: { kind: "content", file: "src/net.ts", pattern: "legacyFetch(" } }],
      complete: true,
    });
    // A new version is not: past the deadline it is not looked at, and says so.
    expect(contentHits(rules, [{ file: "src/net.ts", text: "legacyFetch(2)" }], new Set(), late)).toEqual({
      hits: [],
      complete: false,
    });
  });

  test("rules already activated by content are not reported again; the first match of each is kept", () => {
    const rules = [legacy(), ruleOf("---\nfileContains: TODO\n---\nBody.\n", "todo")];
    const hits = contentHits(
      rules,
      [
        { file: "a.ts", text: "legacyFetch( TODO" },
        { file: "b.ts", text: "TODO" },
      ],
      new Set(["legacy"]),
      noDeadline,
    ).hits;
    expect(hits.map(({ rule, match }) => [rule, match.file])).toEqual([["todo", "a.ts"]]);
  });

  test("a recorded match whose pattern the rule no longer has (its file changed) does not count", () => {
    const stale: ContentMatch = { kind: "content", file: "a.ts", pattern: "oldPattern" };
    expect(whyRuleApplies(legacy(), { files: ["a.ts"], contentMatches: new Map([["legacy", stale]]) })).toBeUndefined();
  });
});

describe("Continue's alwaysApply: false with a condition", () => {
  test("requestable: listed on request by its description until its condition holds", () => {
    const rule = ruleOf("---\ndescription: SQL style\nglobs: '**/*.sql'\nrequestable: true\n---\nBody.\n");
    expect(ruleSetIndex([rule]).onRequest).toEqual([rule]);
    expect(activeRulesAmong([rule], { files: ["db/a.sql"] }).map(({ rule }) => rule.name)).toEqual(["my-rule"]);
  });
});
