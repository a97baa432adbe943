/** Typed warnings: one text per code, a severity per code, and no decision taken on the text. */
import { describe, expect, test } from "vitest";
import {
  foundValue,
  ruleWarning,
  severityOf,
  warningLine,
  warningText,
  type WarningCode,
  type WarningFacts,
} from "../../src/rule/warnings.js";

/** One warning of every code, with details that read like real ones. */
const SAMPLES: { [C in WarningCode]: Extract<WarningFacts, { code: C }> } = {
  "folder-unreadable": { code: "folder-unreadable", reason: "EACCES" },
  "folder-unresolvable": { code: "folder-unresolvable", reason: "ELOOP" },
  "folder-not-a-folder": { code: "folder-not-a-folder" },
  "subfolder-unreadable": { code: "subfolder-unreadable", reason: "EACCES" },
  "symlink-loop": { code: "symlink-loop", realPath: "/p/rules" },
  "folder-already-read": { code: "folder-already-read", realPath: "/p/shared" },
  "folder-too-deep": { code: "folder-too-deep", maxDepth: 64 },
  "walk-limit": { code: "walk-limit", limit: 5000, what: "folders" },
  "too-many-warnings": { code: "too-many-warnings", limit: 50 },
  "nested-search-limit": { code: "nested-search-limit", maxFolders: 2000 },
  "nested-folder-unreadable": { code: "nested-folder-unreadable", reason: "EACCES" },
  "path-unreadable": { code: "path-unreadable", reason: "ENOENT" },
  "path-unresolvable": { code: "path-unresolvable" },
  "not-regular-file": { code: "not-regular-file" },
  "outside-repository": { code: "outside-repository", realPath: "/etc/x.md", realRoot: "/p", what: "file" },
  "extra-dir-outside-repository": { code: "extra-dir-outside-repository" },
  "rule-too-large": { code: "rule-too-large", rule: "big", limit: 1000, size: 2000 },
  "rule-unreadable": { code: "rule-unreadable", rule: "r", reason: "EACCES" },
  "not-text": { code: "not-text", rule: "r", reason: "it is not valid UTF-8 text" },
  "file-empty": { code: "file-empty", rule: "r" },
  "front-matter-language": { code: "front-matter-language", rule: "r", language: "js", line: 1 },
  "front-matter-unclosed": { code: "front-matter-unclosed", rule: "r", line: 1 },
  "front-matter-stray-delimiter": { code: "front-matter-stray-delimiter", rule: "r", strayLine: 3, line: 3 },
  "front-matter-too-deep": { code: "front-matter-too-deep", rule: "r" },
  "yaml-invalid": { code: "yaml-invalid", rule: "r", reason: "duplicated mapping key", line: 3 },
  "front-matter-not-mapping": { code: "front-matter-not-mapping", rule: "r", line: 2 },
  "no-rule-text": { code: "no-rule-text", rule: "r", line: 4 },
  "key-invalid": { code: "key-invalid", rule: "r", key: "globs", found: { type: "number", json: "5" }, line: 2 },
  "front-matter-unread": {
    code: "front-matter-unread",
    problem: "yaml-invalid",
    reason: "duplicated mapping key",
    line: 3,
  },
  "key-ignored": { code: "key-ignored", key: "priority", found: { type: "number", json: "500" }, line: 2 },
  "glob-unusable": {
    code: "glob-unusable",
    glob: "./",
    problem: 'nothing is left once "./" is removed',
    nowApplies: "when-mentioned",
    line: 2,
  },
  "content-condition-lost": { code: "content-condition-lost", key: "regex", nowApplies: "on-request", line: 3 },
  "unknown-keys": { code: "unknown-keys", keys: ["author", "tags"] },
  "activation-invalid": {
    code: "activation-invalid",
    key: "trigger",
    allowed: ["always_on", "glob", "model_decision", "manual"],
    value: '"sometimes"',
  },
  "activation-incomplete": {
    code: "activation-incomplete",
    key: "inclusion",
    value: "fileMatch",
    lacks: "fileMatchPattern",
  },
  "key-ignored-by-tool": {
    code: "key-ignored-by-tool",
    key: "globs",
    tool: "Claude Code",
    reads: "paths",
    alwaysOn: true,
  },
  "scope-empty": { code: "scope-empty", key: "agents" },
  "agent-unknown": { code: "agent-unknown", agent: "planner", known: ["build", "plan"] },
  "activation-missing": {
    code: "activation-missing",
    key: "trigger",
    tool: "Windsurf",
    allowed: ["always_on", "glob", "model_decision", "manual"],
  },
  "forbid-invalid": { code: "forbid-invalid", key: "forbid", found: "mapping", line: 2 },
  "forbid-pattern-unusable": {
    code: "forbid-pattern-unusable",
    key: "forbid",
    pattern: "/(?=a)b/",
    problem: 'uses a lookahead "(?=…)"',
    line: 3,
  },
  "forbid-too-many": { code: "forbid-too-many", key: "forbidCommands", count: 60, limit: 50, line: 2 },
  "enforce-invalid": { code: "enforce-invalid", found: { type: "string", json: '"stop"' }, line: 4 },
  "enforce-without-forbid": { code: "enforce-without-forbid", line: 2 },
  "enforcement-ignored-by-tool": { code: "enforcement-ignored-by-tool", key: "forbid", tool: "Cursor", line: 2 },
  "reference-too-deep": { code: "reference-too-deep", reference: "@6.md", maxDepth: 5 },
  "reference-outside": { code: "reference-outside", reference: "@../x.md", target: "/x.md", trust: "repository" },
  "reference-missing": { code: "reference-missing", reference: "@gone.md", target: "/p/gone.md" },
  "reference-unreadable": { code: "reference-unreadable", reference: "@pipe.md", reason: "it is not a regular file" },
  "reference-leads-outside": {
    code: "reference-leads-outside",
    reference: "@link.md",
    realPath: "/secret.md",
    trust: "user",
  },
  "reference-cycle": { code: "reference-cycle", reference: "@a.md", chain: ["/p/a.md", "/p/b.md", "/p/a.md"] },
  "reference-too-large": { code: "reference-too-large", reference: "@big.md", maxBytes: 65536 },
  "reference-too-many": { code: "reference-too-many", reference: "@x257.md", maxReferences: 256 },
  "config-invalid": { code: "config-invalid", reason: "value expected", line: 3 },
  "plugin-options": { code: "plugin-options", problem: 'unknown option "colour" ignored' },
  "tui-options": { code: "tui-options", keys: ["debug"] },
  "pack-not-delivered": {
    code: "pack-not-delivered",
    pack: "@acme/rules",
    problem: { kind: "not-locked" },
    owner: "repository",
  },
  "managed-not-trusted": {
    code: "managed-not-trusted",
    reason: "/etc/opencode/rules is writable by every user (mode 777)",
  },
  "managed-beside": { code: "managed-beside", managed: "/etc/opencode/rules/secrets.md" },
};

describe("warnings", () => {
  test.each(Object.values(SAMPLES))(
    "$code: an error exactly when something was not loaded, as its text says",
    (facts) => {
      const warning = ruleWarning("/p/file.md", facts);
      const text = warningText(warning);
      expect(text).not.toBe("");
      expect(warning.severity).toBe(severityOf(facts.code));
      // What `check` decided from the words before warnings were typed; now the code decides, and they agree.
      expect(warning.severity).toBe(
        /\bskipped\b|were not loaded|was not read|was ignored|not delivered\b/.test(text) ? "error" : "warning",
      );
    },
  );

  test("a warning is its facts, its severity and its path; the text is made on demand", () => {
    const warning = ruleWarning("/p/r.md", {
      code: "yaml-invalid",
      rule: "r",
      reason: "duplicated mapping key",
      line: 3,
    });
    expect(warning).toEqual({
      code: "yaml-invalid",
      severity: "error",
      path: "/p/r.md",
      rule: "r",
      reason: "duplicated mapping key",
      line: 3,
    });
    expect(JSON.parse(JSON.stringify(warning))).toEqual(warning);
    expect(warningText(warning)).toBe('front matter is not valid YAML (duplicated mapping key); rule "r" skipped');
    expect(warningLine(warning)).toBe(
      '/p/r.md:3: front matter is not valid YAML (duplicated mapping key); rule "r" skipped',
    );
    expect(warningLine(warning, ".opencode/rules/r.md")).toBe(
      '.opencode/rules/r.md:3: front matter is not valid YAML (duplicated mapping key); rule "r" skipped',
    );
  });

  test("details that happen to hold the words of an error do not make a warning one", () => {
    const warning = ruleWarning("/p/r.md", {
      code: "glob-unusable",
      glob: "skipped/[z-a]",
      problem: "the character range z-a is reversed; it was not read",
    });
    expect(warning.severity).toBe("warning");
  });

  test("texts that depend on their details", () => {
    const text = (facts: WarningFacts) => warningText(ruleWarning("/p/r.md", facts));
    expect(text({ code: "rule-too-large", rule: "grows", limit: 100 })).toBe(
      'the file is over the 100-byte limit per rule; rule "grows" skipped',
    );
    expect(text({ code: "unknown-keys", keys: ["author"] })).toBe(
      'front matter key "author" is not used by opencode-rulebook; kept and ignored',
    );
    expect(text({ code: "glob-unusable", glob: "./", problem: "p" })).toBe(
      'glob "./" cannot be used (p); this glob is ignored',
    );
    expect(text({ code: "activation-incomplete", key: "trigger", value: "model_decision", lacks: "description" })).toBe(
      'front matter says "trigger: model_decision" but has no description; the rule applies only when mentioned',
    );
    expect(text({ code: "key-ignored-by-tool", key: "applyTo", tool: "Cline", reads: "paths", alwaysOn: true })).toBe(
      'Cline does not read front matter key "applyTo" (it reads "paths"); ignored here too, as in Cline: the rule is always on (write "paths" to limit it to files)',
    );
    expect(text({ code: "reference-outside", reference: "@x.md", target: "/x.md", trust: "user" })).toBe(
      "reference @x.md points outside your rules and OpenCode config folders (/x.md); refused; left as text",
    );
    expect(text({ code: "walk-limit", limit: 9, what: "entries" })).toBe(
      "more than 9 folder entries in this source's rule folders; the walk stopped here and the rest was not read",
    );
  });

  test("foundValue keeps what the text needs, never the value itself", () => {
    expect(foundValue(null)).toBe("nothing");
    expect(foundValue([1])).toBe("list");
    expect(foundValue(new Date(0))).toBe("date");
    expect(foundValue({ a: 1 })).toBe("mapping");
    expect(foundValue("yes")).toEqual({ type: "string", json: '"yes"' });
    expect(foundValue("x".repeat(1000))).toEqual({ type: "string", json: `"${"x".repeat(59)}` });
    const text = warningText(
      ruleWarning("/p/r.md", { code: "key-invalid", rule: "r", key: "enabled", found: foundValue("x".repeat(1000)) }),
    );
    expect(text).toBe(
      `front matter key "enabled" should be true or false, found ${`string "${"x".repeat(1000)}`.slice(0, 60)}; rule "r" skipped`,
    );
  });
});
