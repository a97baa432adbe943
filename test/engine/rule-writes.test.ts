/**
 * The user sees a rule being weakened: a call that writes a rule file so that
 * an enforcing rule is switched off, loses patterns, turns to warn, holds
 * elsewhere or is shadowed is found, read as discovery will read the file.
 */
import { describe, expect, test } from "vitest";
import type { FoundRuleFile } from "../../src/discover/source.js";
import { weakenedByWrites } from "../../src/engine/rule-writes.js";
import type { LoadedRules } from "../../src/formats/load.js";
import { weakenedText } from "../../src/render/weakened.js";
import { parseFile } from "../../src/discover/parse-file.js";
import { nativeSource } from "../../src/formats/native.js";
import { extraSource } from "../../src/formats/extra.js";
import type { Rule } from "../../src/rule/rule.js";

const ROOT = "/project";
const place = {
  projectRoot: ROOT,
  levels: [ROOT],
  nativeFolders: [`${ROOT}/.opencode/rules`],
  maxRuleBytes: 64 * 1024,
};

const NO_FORCE = `---
forbidCommands:
  - git push --force
  - /git\\s+push\\b.*\\s-f(\\s|$)/
---
Never force-push.
`;

function found(rel: string, source = "native"): FoundRuleFile {
  const relPath = rel.replace(/^\.(opencode|cursor)\/rules\//, "");
  return {
    name: relPath.replace(/\.(md|mdc)$/, ""),
    scope: "project",
    source,
    path: `${ROOT}/${rel}`,
    displayPath: rel,
    relPath,
    size: 0,
    trust: "repository",
  };
}

function loadedWith(...files: Array<[FoundRuleFile, string]>): LoadedRules {
  const rules = files.map(
    ([file, text]) =>
      parseFile(file, file.source === "extra" ? extraSource : nativeSource, Buffer.from(text)).rule as Rule,
  );
  return { rules, shadowed: [], warnings: [], files: files.map(([file]) => file), folders: [], references: [] };
}

const noForce = found(".opencode/rules/no-force-push.md");
const loaded = loadedWith([noForce, NO_FORCE]);
const weakened = (after: string, path = noForce.path, rules = loaded) =>
  weakenedByWrites([{ path, after }], rules, place);

describe("a write of a rule file that weakens an enforcing rule is found", () => {
  test("enabled: false switches it off", () => {
    expect(weakened(NO_FORCE.replace("---\nforbidCommands", "---\nenabled: false\nforbidCommands"))).toEqual([
      { name: "no-force-push", displayPath: ".opencode/rules/no-force-push.md", ways: [{ kind: "switched-off" }] },
    ]);
  });

  test("a patch deleting the rule file (left with no text) switches it off", () => {
    expect(weakened("")[0]?.ways).toEqual([{ kind: "switched-off" }]);
  });

  test("removing a pattern, or the whole forbidCommands key, names the patterns lost", () => {
    expect(weakened(NO_FORCE.replace("  - git push --force\n", ""))[0]?.ways).toEqual([
      { kind: "patterns-removed", patterns: ["git push --force"] },
    ]);
    expect(weakened("Never force-push.\n")[0]?.ways).toEqual([
      { kind: "patterns-removed", patterns: ["git push --force", "/git\\s+push\\b.*\\s-f(\\s|$)/"] },
    ]);
  });

  test("block to warn, and a narrower scope, are weakenings too", () => {
    expect(weakened(NO_FORCE.replace("---\nforbidCommands", "---\nenforce: warn\nforbidCommands"))[0]?.ways).toEqual([
      { kind: "now-warns" },
    ]);
    expect(weakened(NO_FORCE.replace("---\nforbidCommands", "---\nagents: [plan]\nforbidCommands"))[0]?.ways).toEqual([
      { kind: "scope-changed", keys: ["agents"] },
    ]);
  });

  test("a new same-named rule in the project's rules folder that shadows it (an extraDirs rule of the repository)", () => {
    const extraRule = { ...found(".agents/rules/no-force-push.md", "extra"), name: "no-force-push" };
    const rules = loadedWith([extraRule, NO_FORCE]);
    expect(weakened("Push as you like.\n", noForce.path, rules)).toEqual([
      {
        name: "no-force-push",
        displayPath: ".agents/rules/no-force-push.md",
        ways: [{ kind: "shadowed", by: ".opencode/rules/no-force-push.md" }],
      },
    ]);
  });

  test("a repository rule named like the user's global one shadows its text only: its forbids hold, nothing is weakened", () => {
    const userRule: FoundRuleFile = {
      ...found(".opencode/rules/git.md"),
      scope: "global",
      path: "/home/u/.config/opencode/rules/git.md",
      displayPath: "~/.config/opencode/rules/git.md",
      trust: "user",
    };
    const rules = loadedWith([userRule, NO_FORCE]);
    expect(weakened("Use git well.\n", `${ROOT}/.opencode/rules/git.md`, rules)).toEqual([]);
  });

  test("a same-named rule written in a nearer project level's rules folder shadows it (discovery ranks the nearer first)", () => {
    const nested = {
      projectRoot: ROOT,
      levels: [ROOT, `${ROOT}/packages/app`],
      nativeFolders: [`${ROOT}/.opencode/rules`, `${ROOT}/packages/app/.opencode/rules`],
      maxRuleBytes: 64 * 1024,
    };
    expect(
      weakenedByWrites(
        [{ path: `${ROOT}/packages/app/.opencode/rules/no-force-push.md`, after: "Push as you like.\n" }],
        loaded,
        nested,
      ),
    ).toEqual([
      {
        name: "no-force-push",
        displayPath: ".opencode/rules/no-force-push.md",
        ways: [{ kind: "shadowed", by: "packages/app/.opencode/rules/no-force-push.md" }],
      },
    ]);
  });

  test("a rule file over the size limit is skipped by discovery: switched off", () => {
    expect(weakened(NO_FORCE + "x".repeat(70 * 1024))[0]?.ways).toEqual([{ kind: "switched-off" }]);
  });

  test("strengthening, rewording, adding patterns, or an unrelated rule file: nothing to tell", () => {
    expect(weakened(NO_FORCE.replace("Never force-push.", "Never, ever force-push."))).toEqual([]);
    expect(weakened(NO_FORCE.replace("forbidCommands:\n", "forbidCommands:\n  - git reset --hard\n"))).toEqual([]);
    expect(weakened("# Style\nUse tabs.\n", `${ROOT}/.opencode/rules/style.md`)).toEqual([]);
    expect(weakenedByWrites([{ path: noForce.path }], loaded, place)).toEqual([]);
  });

  test("the tool result's words name the rule and how, and say the user sees it", () => {
    const text = weakenedText(weakened("Never force-push.\n"));
    expect(text).toContain("the user is told");
    expect(text).toContain(
      '- Rule "no-force-push" (.opencode/rules/no-force-push.md): no longer forbids `git push --force`',
    );
  });
});
