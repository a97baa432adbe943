/**
 * OpenHands skills and microagents, written from https://docs.openhands.dev/overview/skills
 * and the SDK's loader (openhands/sdk/skills/skill.py): folders, `triggers`, `paths`.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { MapperWarn } from "../../src/discover/source.js";
import { mapTriggers, openhandsType } from "../../src/formats/openhands.js";
import { ruleWarning, type RuleWarning } from "../../src/rule/warnings.js";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

let box: Box;
useBox((made) => (box = made));

describe("OpenHands: where skills are found", () => {
  test("repo.md always; .agents/skills, .openhands/skills, .openhands/microagents; ~/ the same three are global", async () => {
    await box.write(box.project, {
      ".openhands/microagents/repo.md":
        "---\nname: repo\ntype: repo\nagent: CodeActAgent\n---\nThis repository uses pnpm.",
      ".openhands/microagents/docker.md": "---\ntriggers:\n  - docker\n  - dockerfile\n---\nD",
      ".openhands/skills/lint.md": "---\ntriggers: [eslint]\n---\nL",
      ".agents/skills/review/guide.md": "Nested: named by its path.",
      ".agents/skills/README.md": "Not a skill.",
    });
    await box.write(box.home, { ".openhands/skills/me.md": "Always mine." });
    const { rules, warnings } = await loadSource(box, "openhands");
    expect(warnings).toEqual([]);
    expect(
      rules.map((rule) => [
        rule.scope,
        rule.name,
        activationOf(rule),
        rule.conditions.keywords ?? [],
        rule.toolType,
        rule.unknownKeys,
      ]),
    ).toEqual([
      ["global", "me", "always", [], "repo", []],
      ["project", "docker", "conditional", ["docker", "dockerfile"], "knowledge", []],
      ["project", "lint", "conditional", ["eslint"], "knowledge", []],
      ["project", "repo", "always", [], "repo", []],
      ["project", "review/guide", "always", [], "repo", []],
    ]);
  });

  test("AgentSkills SKILL.md folders are OpenCode's own skills: neither SKILL.md nor its resources are read", async () => {
    await box.write(join(box.project, ".agents/skills"), {
      "pdf/SKILL.md": "---\nname: pdf\ndescription: Work with PDFs\n---\nP",
      "pdf/references/forms.md": "Resource.",
      "style.md": "---\ntriggers: [style]\n---\nS",
    });
    const { rules } = await loadSource(box, "openhands");
    expect(rules.map((rule) => rule.name)).toEqual(["style"]);
  });

  test("the same name in .agents/skills and .openhands/skills: .agents/skills wins, as in OpenHands", async () => {
    await box.write(box.project, { ".agents/skills/a.md": "New.", ".openhands/skills/a.md": "Old." });
    const { rules, shadowed } = await loadSource(box, "openhands");
    expect(rules.map((rule) => rule.displayPath)).toEqual([".agents/skills/a.md"]);
    expect(shadowed.map((entry) => entry.rule.displayPath)).toEqual([".openhands/skills/a.md"]);
  });

  test("a nested project level's skills are read", async () => {
    await box.write(box.project, { "packages/app/.openhands/microagents/repo.md": "Near." });
    const { rules } = await loadSource(box, "openhands", { directory: join(box.project, "packages/app") });
    expect(rules.map((rule) => rule.displayPath)).toEqual(["packages/app/.openhands/microagents/repo.md"]);
  });
});

describe("OpenHands: triggers and paths", () => {
  function collect(): { warn: MapperWarn; warnings: RuleWarning[] } {
    const warnings: RuleWarning[] = [];
    return { warnings, warn: (facts) => warnings.push(ruleWarning("/p/.openhands/skills/x.md", facts)) };
  }

  test("triggers → keywords, matched as whole words case-insensitively (OpenHands' _keyword_matches): no keywordMatch", () => {
    const { warn, warnings } = collect();
    expect(mapTriggers({ name: "git", triggers: ["git", "/linear"], version: "1.0.0" }, warn)).toEqual({
      keywords: ["git", "/linear"],
    });
    expect(mapTriggers({ triggers: [] }, warn)).toEqual({ alwaysApply: true });
    expect(mapTriggers({}, warn)).toEqual({ alwaysApply: true });
    expect(warnings).toEqual([]);
  });

  test("paths → files (comma-separated or a list); paths wins over triggers, with a warning", () => {
    const { warn, warnings } = collect();
    expect(mapTriggers({ paths: "src/**/*.py, tests/**" }, warn)).toEqual({ paths: ["src/**/*.py", "tests/**"] });
    expect(mapTriggers({ paths: ["*.py"], triggers: ["python"] }, warn)).toEqual({ paths: ["*.py"] });
    expect(shown(warnings).map((warning) => warning.message)).toEqual([
      'OpenHands does not read front matter key "triggers" (it reads "paths"); ignored here too, as in OpenHands',
    ]);
  });

  test("triggers that is not a list: OpenHands refuses the skill; here manual, with file and line", async () => {
    await box.write(join(box.project, ".openhands/skills"), {
      "bad.md": "---\ndescription: d\ntriggers: docker\n---\nB",
    });
    const { rules, warnings } = await loadSource(box, "openhands");
    expect(rules.map((rule) => [rule.name, activationOf(rule)])).toEqual([["bad", "manual"]]);
    expect(shown(warnings)).toEqual([
      {
        path: join(box.project, ".openhands/skills/bad.md"),
        line: 3,
        message:
          'front matter key "triggers" should be a YAML list of keywords, found "docker"; the rule applies only when mentioned',
      },
    ]);
  });

  test("a path-triggered skill in a file applies to its files", async () => {
    await box.write(join(box.project, ".agents/skills"), { "py.md": '---\npaths: ["**/*.py"]\n---\nUse ruff.' });
    const { summaries } = await loadSource(box, "openhands");
    expect(summaries).toEqual([{ name: "py", mode: "conditional", globs: ["**/*.py"], description: undefined }]);
  });

  test("types as OpenHands names them", () => {
    expect(openhandsType({})).toBe("repo");
    expect(openhandsType({ triggers: ["a"] })).toBe("knowledge");
    expect(openhandsType({ paths: "src/**", triggers: ["a"] })).toBe("path");
  });
});
