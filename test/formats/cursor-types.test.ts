/**
 * Cursor's rule types (Always, Auto Attached, Agent Requested, Manual) as
 * Cursor gives them, `.cursorrules` at the project root only, and globs
 * starting with `/` read from the project root.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { prefixGlob } from "../../src/formats/folder-scope.js";
import { matchingGlob } from "../../src/glob/rule-glob.js";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";

let box: Box;
useBox((made) => (box = made));

const typed = async (overrides = {}) => {
  const { rules, warnings } = await loadSource(box, "cursor", overrides);
  return {
    rules: rules.map((rule) => [rule.scope, rule.name, rule.toolType, activationOf(rule), rule.description ?? null]),
    warnings,
  };
};

describe("Cursor's rule types", () => {
  test("Always, Auto Attached, Agent Requested and Manual, in .cursor/rules and ~/.cursor/rules", async () => {
    await box.write(join(box.project, ".cursor/rules"), {
      "always.mdc": "---\ndescription: Everywhere\nalwaysApply: true\n---\nA",
      "attached.mdc": "---\nglobs: src/**/*.ts\n---\nT",
      "attached-not-always.mdc": "---\ndescription: TS\nglobs: src/**/*.ts\nalwaysApply: false\n---\nT",
      "requested.mdc": "---\ndescription: When touching the schema\n---\nR",
      "requested-not-always.mdc": "---\ndescription: When deploying\nglobs:\nalwaysApply: false\n---\nR",
      "manual.mdc": "---\nalwaysApply: false\n---\nM",
      "manual-empty-description.mdc": "---\ndescription:\nalwaysApply: false\n---\nM",
      "no-front-matter.mdc": "Only when mentioned.",
      "other-keys-only.md": "---\nauthor: me\n---\nM",
    });
    await box.write(join(box.home, ".cursor/rules"), { "mine.mdc": "Mine, when mentioned." });
    const { rules } = await typed();
    expect(rules).toEqual([
      ["global", "mine", "Manual", "manual", null],
      ["project", "always", "Always", "always", "Everywhere"],
      ["project", "attached", "Auto Attached", "conditional", null],
      ["project", "attached-not-always", "Auto Attached", "conditional", "TS"],
      ["project", "manual", "Manual", "manual", null],
      ["project", "manual-empty-description", "Manual", "manual", null],
      ["project", "no-front-matter", "Manual", "manual", null],
      ["project", "other-keys-only", "Manual", "manual", null],
      ["project", "requested", "Agent Requested", "on-request", "When touching the schema"],
      ["project", "requested-not-always", "Agent Requested", "on-request", "When deploying"],
    ]);
  });

  test(".cursorrules is a rule at the project root only: not in a sub-folder, nor at a level above the directory", async () => {
    await box.write(box.project, {
      ".cursorrules": "Root legacy rules.",
      "pkg/.cursorrules": "Not read by Cursor.",
      "pkg/.cursor/rules/p.mdc": "---\nalwaysApply: true\n---\nP",
      "services/api/.cursorrules": "Not read by Cursor.",
    });
    expect((await typed()).rules).toEqual([
      ["project", "cursorrules", "Always", "always", null],
      ["project", "pkg/p", "Always", "conditional", null],
    ]);
    // services/api is a project level here: its .cursorrules is still not read; the root's is.
    const fromApi = await typed({ directory: join(box.project, "services/api") });
    expect(fromApi.rules).toEqual([["project", "cursorrules", "Always", "always", null]]);
  });
});

describe("Cursor globs starting with /: from the project root", () => {
  test("at the root: /resources/css/**/*.css matches resources/css/app.css only; also negated, ./ and in ~/.cursor/rules", async () => {
    await box.write(join(box.project, ".cursor/rules"), {
      "css.mdc": "---\nglobs: /resources/css/**/*.css, !/resources/css/vendor/**\n---\nC",
      "dot.mdc": "---\nglobs: ./scripts/*.sh\n---\nS",
    });
    await box.write(join(box.home, ".cursor/rules"), { "mine.mdc": "---\nglobs: [/docs/**]\n---\nD" });
    const { rules } = await loadSource(box, "cursor");
    const globsNamed = (name: string) => rules.find((rule) => rule.name === name)?.conditions.files ?? [];
    expect(globsNamed("css")).toEqual(["resources/css/**/*.css", "!resources/css/vendor/**"]);
    const [css] = globsNamed("css");
    expect(matchingGlob("resources/css/app.css", [css as string])).toBe("resources/css/**/*.css");
    expect(matchingGlob("app/resources/css/app.css", [css as string])).toBeUndefined();
    expect(globsNamed("dot")).toEqual(["scripts/*.sh"]);
    expect(globsNamed("mine")).toEqual(["docs/**"]);
  });

  test("in a sub-folder: from that folder", async () => {
    await box.write(box.project, { "pkg/a/.cursor/rules/css.mdc": "---\nglobs: /resources/css/**/*.css\n---\nC" });
    const { rules } = await loadSource(box, "cursor");
    expect(rules[0]?.conditions.files).toEqual(["pkg/a/resources/css/**/*.css"]);
    expect(matchingGlob("pkg/a/resources/css/app.css", rules[0]?.conditions.files ?? [])).toBeDefined();
    expect(matchingGlob("resources/css/app.css", rules[0]?.conditions.files ?? [])).toBeUndefined();
  });

  test("prefixGlob at the root drops only a leading / or ./", () => {
    expect(prefixGlob("/a/**", "")).toBe("a/**");
    expect(prefixGlob("!/a/**", "")).toBe("!a/**");
    expect(prefixGlob("./a/*.ts", "")).toBe("a/*.ts");
    expect(prefixGlob("*.ts", "")).toBe("*.ts");
    expect(prefixGlob("/a/**", "p")).toBe("p/a/**");
  });
});
