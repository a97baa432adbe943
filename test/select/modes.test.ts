import fc from "fast-check";
import micromatch from "micromatch";
import { describe, expect, test } from "vitest";
import { parseRule } from "../../src/rule/parse.js";
import type { Rule } from "../../src/rule/rule.js";
import { composeRulesMessage } from "../../src/render/compose.js";
import { whyRuleApplies, whyRuleDoesNotApply } from "../../src/select/active.js";
import { activationOf } from "../../src/select/rule-set.js";
import type { ActivationReason } from "../../src/select/reasons.js";
import { answerRuleRequest, MAX_NAMES_LISTED } from "../../src/render/rule-request.js";
import { whyText } from "../support/activation.js";
import { parseRulesMessage } from "../support/rules-message.js";

function rule(name: string, text: string): Rule {
  const parsed = parseRule(
    {
      name,
      scope: "project",
      source: "native",
      path: `/p/.opencode/rules/${name}.md`,
      displayPath: `.opencode/rules/${name}.md`,
    },
    new TextEncoder().encode(text),
  );
  if (!parsed.rule) throw new Error(JSON.stringify(parsed.warnings));
  return parsed.rule;
}

const always = rule("style", "Write small functions.");
const typescript = rule("typescript", '---\nglobs: "src/**/*.ts"\n---\nUse strict types.');
const database = rule("database", "---\npaths:\n  - src/db/**\n---\nUse the read-only role.");
const copilot = rule("copilot", "---\napplyTo: '**/*.py'\n---\nPython style.");
const kiro = rule("kiro", "---\nfileMatchPattern: 'docs/**'\n---\nDocs style.");
const migrations = rule("migrations", "---\nkeywords: [migration, schema]\n---\nFollow the migration checklist.");
const topics = rule("customer", "---\ntopics: customer, sql\n---\nUse customer_ro.");
const onRequest = rule(
  "security",
  "---\ndescription: How to handle secrets and credentials\nalwaysApply: false\n---\nNever log secrets.",
);
const manual = rule("release", "---\nalwaysApply: false\n---\nRelease steps.");
const both = rule(
  "db-migrations",
  "---\nglobs: src/db/**\nkeywords: migration\nmatch: all\n---\nMigrations in src/db need review.",
);
const either = rule("db-or-migration", "---\nglobs: src/db/**\nkeywords: migration\n---\nEither.");

describe("activation modes", () => {
  test("always: no conditions, or alwaysApply: true even with globs", () => {
    expect(activationOf(always)).toBe("always");
    expect(activationOf(rule("a", "---\nalwaysApply: true\nglobs: x/**\n---\nA."))).toBe("always");
    expect(whyText(always, { files: [] })).toBe("always");
  });

  test("files: globs and the aliases paths, applyTo, fileMatchPattern", () => {
    expect(whyText(typescript, { files: ["src/app.ts"] })).toBe("file src/app.ts matched src/**/*.ts");
    expect(whyRuleApplies(typescript, { files: ["README.md"] })).toBeUndefined();
    expect(whyText(database, { files: ["src/db/user.ts"] })).toBe("file src/db/user.ts matched src/db/**");
    expect(whyText(copilot, { files: ["tools/x.py"] })).toBe("file tools/x.py matched **/*.py");
    expect(whyText(kiro, { files: ["docs/a.md"] })).toBe("file docs/a.md matched docs/**");
  });

  test("keywords (alias topics): whole words of the prompt", () => {
    expect(whyText(migrations, { files: [], prompt: "add a schema change" })).toBe('keyword "schema" in the prompt');
    expect(whyRuleApplies(migrations, { files: [], prompt: "schemas are fun" })).toBeUndefined();
    expect(whyText(topics, { files: [], prompt: "which Customer table?" })).toBe('keyword "customer" in the prompt');
  });

  test("mention: @name activates any rule, whatever its conditions", () => {
    for (const target of [manual, onRequest, typescript, migrations]) {
      expect(whyText(target, { files: [], mentioned: new Set([target.name]) })).toBe(
        `mention: @${target.name} in the prompt`,
      );
    }
  });

  test("on request: listed, not delivered; manual: only by mention", () => {
    expect(activationOf(onRequest)).toBe("on-request");
    expect(activationOf(manual)).toBe("manual");
    expect(whyRuleApplies(onRequest, { files: ["x"], prompt: "secrets" })).toBeUndefined();
    expect(whyRuleDoesNotApply(manual, { files: [] })).toBe("manual: applies only when the prompt mentions @release");
  });

  test("match: all needs every condition, any needs one", () => {
    expect(whyRuleApplies(both, { files: ["src/db/a.ts"], prompt: "hello" })).toBeUndefined();
    expect(whyText(both, { files: ["src/db/a.ts"], prompt: "a migration" })).toBe(
      'file src/db/a.ts matched src/db/** and keyword "migration" in the prompt',
    );
    expect(whyText(either, { files: [], prompt: "a migration" })).toBe('keyword "migration" in the prompt');
    expect(whyRuleDoesNotApply(both, { files: [], prompt: "x" })).toBe(
      "all conditions needed; files: no file matched src/db/**; keywords: none of migration in the prompt",
    );
  });

  test("a rule activated earlier keeps its reason", () => {
    const earlier: ActivationReason = {
      kind: "conditions",
      met: [{ kind: "file", file: "src/a.ts", glob: "src/**/*.ts" }],
    };
    expect(whyRuleApplies(typescript, { files: [], activated: new Map([["typescript", earlier]]) })).toBe(earlier);
    expect(whyText(typescript, { files: [], activated: new Map([["typescript", earlier]]) })).toBe(
      "file src/a.ts matched src/**/*.ts",
    );
  });

  test("property: a glob rule applies iff micromatch (reference) matches one of the files", () => {
    const segment = fc.constantFrom("src", "lib", "db", "a", "b.ts", "c.js", ".hidden", "x.test.ts");
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
    const glob = fc.constantFrom(
      "src/**",
      "**/*.ts",
      "src/*.ts",
      "{src,lib}/**/*.js",
      "**/.hidden/**",
      "lib/**/b.ts",
      "*.test.ts",
      "db/**",
    );
    fc.assert(
      fc.property(fc.array(path, { maxLength: 4 }), glob, (files, pattern) => {
        const subject = rule("subject", `---\nglobs: "${pattern}"\n---\nX.`);
        const reference = files.some((file) =>
          micromatch.isMatch(file, pattern.includes("/") ? pattern : `**/${pattern}`, { dot: true }),
        );
        expect(whyRuleApplies(subject, { files }) !== undefined).toBe(reference);
      }),
      { numRuns: 300 },
    );
  });
});

describe("composing a session's message", () => {
  const rules = [always, typescript, migrations, onRequest, manual];

  test("the first message has the always-on rules and lists the on-request ones by name and description only", () => {
    const composed = composeRulesMessage(rules, { files: [] }, { listOnRequest: true })!;
    expect(composed.included.map(({ rule }) => rule.name)).toEqual(["style"]);
    expect(composed.text).toContain("- security: How to handle secrets and credentials");
    expect(composed.text).not.toContain("Never log secrets.");
    expect(composed.text).not.toContain("Release steps.");
  });

  test("rules already delivered are not sent again", () => {
    const composed = composeRulesMessage(rules, { files: ["src/a.ts"] }, { delivered: new Map([["style", always]]) })!;
    expect(composed.included.map(({ rule }) => rule.name)).toEqual(["typescript"]);
    expect(composeRulesMessage(rules, { files: [] }, { delivered: new Map([["style", always]]) })).toBeUndefined();
  });

  test("past the byte budget, the lowest-priority rules are left out whole and named", () => {
    const big = rule("big", `---\npriority: 10\n---\n${"x".repeat(3000)}`);
    const important = rule("important", `---\npriority: 90\n---\nKeep this.`);
    const composed = composeRulesMessage([big, important, always], { files: [] }, { maxBytes: 1500 })!;
    expect(composed.included.map(({ rule }) => rule.name)).toEqual(["important", "style"]);
    expect(composed.leftOut.map((left) => left.name)).toEqual(["big"]);
    expect(composed.text).toContain("left out of this message to keep it short: big");
    expect(composed.text).not.toContain("xxxx");
    expect(Buffer.byteLength(composed.text)).toBeLessThanOrEqual(1500);
    expect(parseRulesMessage(composed.text).map((entry) => entry.name)).toEqual(["important", "style"]);
  });
});

describe("the rule tool", () => {
  test("returns a rule by name, framed as the project's rule", () => {
    const answer = answerRuleRequest([always, onRequest], "security");
    expect(answer.rule?.name).toBe("security");
    expect(answer.output).toContain("Never log secrets.");
    expect(answer.output).toContain('<rule name="security"');
  });

  test("an unknown name answers with the known names", () => {
    expect(answerRuleRequest([always, onRequest], "nope").output).toBe(
      'There is no rule named "nope". Known rules: style, security.',
    );
  });
});

describe("files outside the project", () => {
  test("are kept absolute and match only absolute globs", () => {
    const anyTs = rule("any-ts", '---\nglobs: "**/*.ts"\n---\nTS.');
    const bare = rule("bare", '---\nglobs: "*.ts"\n---\nTS.');
    const etc = rule("etc", '---\nglobs: "/etc/**"\n---\nSystem files.');
    expect(whyRuleApplies(anyTs, { files: ["/etc/x.ts"] })).toBeUndefined();
    expect(whyRuleApplies(bare, { files: ["/etc/x.ts"] })).toBeUndefined();
    expect(whyText(etc, { files: ["/etc/x.ts"] })).toBe("file /etc/x.ts matched /etc/**");
    expect(whyRuleApplies(etc, { files: ["etc/x.ts"] })).toBeUndefined();
    expect(whyText(anyTs, { files: ["src/x.ts"] })).toBe("file src/x.ts matched **/*.ts");
  });
});

describe("the rule tool's answer to an unknown name is bounded", () => {
  const many = Array.from({ length: 1200 }, (_, i) => rule(`r${String(i).padStart(4, "0")}`, "Text."));

  test("at most MAX_NAMES_LISTED names, then a count; the beginning of a name narrows the list", () => {
    const all = answerRuleRequest(many, "nope").output;
    expect(all.match(/r\d{4}/g)).toHaveLength(MAX_NAMES_LISTED);
    expect(all).toMatch(/, and 700 more \(give the beginning of a name to list only those\)\.$/);
    expect(answerRuleRequest(many, "r001").output).toBe(
      `There is no rule named "r001". Rules whose names begin with "r001": ${Array.from({ length: 10 }, (_, i) => `r001${i}`).join(", ")}.`,
    );
  });
});
