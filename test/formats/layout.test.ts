/**
 * Each format says where it keeps rules (its layout) in one place, its source
 * file: the sources find rules there, and hot reload watches there.
 */
import { join, relative, sep } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ALL_SOURCES } from "../../src/formats/sources.js";
import { foldersToWatch, rulePlaces } from "../../src/discover/watch.js";
import { type Box, makeBox } from "../support/formats.js";

const layouts = ALL_SOURCES.flatMap((source) => (source.layout ? [source.layout] : []));

describe("rulePlaces: what a project level or home folder is watched for, from the sources' layouts", () => {
  test("the entries and folders of every format", () => {
    const places = rulePlaces(layouts);
    expect([...places.entries].sort()).toEqual([
      ".agent",
      ".agents",
      ".aiassistant",
      ".amazonq",
      ".augment",
      ".augment-guidelines",
      ".claude",
      ".clinerules",
      ".clinerules-architect",
      ".clinerules-ask",
      ".clinerules-code",
      ".clinerules-debug",
      ".clinerules-orchestrator",
      ".codeium",
      ".continue",
      ".continuerules",
      ".cursor",
      ".cursorrules",
      ".gemini",
      ".github",
      ".junie",
      ".kilocode",
      ".kilocoderules",
      ".kilocoderules-architect",
      ".kilocoderules-ask",
      ".kilocoderules-code",
      ".kilocoderules-debug",
      ".kilocoderules-orchestrator",
      ".kiro",
      ".opencode",
      ".openhands",
      ".roo",
      ".roorules",
      ".roorules-architect",
      ".roorules-ask",
      ".roorules-code",
      ".roorules-debug",
      ".roorules-orchestrator",
      ".rules",
      ".windsurf",
      ".windsurfrules",
      "GEMINI.md",
    ]);
    expect([...places.folders].sort()).toEqual([
      ".agent",
      ".agent/rules",
      ".agents",
      ".agents/rules",
      ".agents/skills",
      ".aiassistant",
      ".aiassistant/rules",
      ".amazonq",
      ".amazonq/rules",
      ".augment",
      ".augment/rules",
      ".claude",
      ".claude/rules",
      ".clinerules",
      ".codeium/windsurf/memories",
      ".continue",
      ".continue/rules",
      ".cursor",
      ".cursor/rules",
      ".gemini",
      ".github",
      ".github/instructions",
      ".junie",
      ".kilocode",
      ".kilocode/rules",
      ".kiro",
      ".kiro/steering",
      ".opencode",
      ".opencode/rules",
      ".openhands",
      ".openhands/microagents",
      ".openhands/skills",
      ".roo",
      ".roo/rules",
      ".windsurf",
      ".windsurf/rules",
    ]);
  });

  test("a new format's places are watched by declaring them", () => {
    const places = rulePlaces([
      ...layouts,
      { folders: [".newtool/rules/active"], files: [".newtoolrules", ".newtool/global.md"] },
    ]);
    expect(places.entries).toContain(".newtool");
    expect(places.entries).toContain(".newtoolrules");
    expect(places.folders).toEqual(expect.arrayContaining([".newtool", ".newtool/rules", ".newtool/rules/active"]));
    const watched = foldersToWatch(["/p/.newtool/rules/active/x.md"], ["/p"], ["/cfg/rules"], places);
    expect(watched.folders).toContain("/p/.newtool/rules/active");
    expect(watched.folders).toContain("/cfg/rules");
    expect(watched.filters.get("/p")).toBe(places.entries);
  });
});

describe("the sources find rules only in the places they declare", () => {
  let box: Box;
  beforeEach(async () => {
    box = await makeBox();
  });
  afterEach(() => box.cleanup());

  test("every rule file and rules folder found lies in a declared place of its source", async () => {
    const rule = "A rule.";
    await box.write(box.project, {
      ".opencode/rules/n.md": rule,
      ".cursor/rules/c.mdc": rule,
      ".cursorrules": rule,
      ".claude/rules/cl.md": rule,
      ".windsurf/rules/w.md": `---\ntrigger: always_on\n---\n${rule}`,
      ".windsurfrules": rule,
      ".clinerules/ci.md": rule,
      ".github/copilot-instructions.md": rule,
      ".github/instructions/g.instructions.md": rule,
      ".kiro/steering/k.md": rule,
    });
    await box.write(box.home, {
      ".cursor/rules/hc.mdc": rule,
      ".claude/rules/hcl.md": rule,
      ".kiro/steering/hk.md": rule,
      ".codeium/windsurf/memories/global_rules.md": rule,
    });
    const loaded = await box.load();
    expect(loaded.warnings).toEqual([]);
    expect(new Set(loaded.files.map((file) => file.source))).toEqual(
      new Set(["cursor", "claude", "windsurf", "cline", "copilot", "kiro", "native"]),
    );
    const placesOf = (id: string) => {
      const layout = ALL_SOURCES.find((source) => source.id === id)?.layout;
      return [...(layout?.folders ?? []), ...(layout?.files ?? [])];
    };
    for (const file of loaded.files) {
      const base = file.path.startsWith(box.project + sep) ? box.project : box.home;
      const rel = relative(base, file.path).split(sep).join("/");
      expect(
        placesOf(file.source).some((place) => rel === place || rel.startsWith(`${place}/`)),
        `${file.source}: ${rel}`,
      ).toBe(true);
    }
    expect(loaded.files.map((file) => file.source === "native" && file.scope === "project" && file.path)).toContain(
      join(box.project, ".opencode/rules/n.md"),
    );
  });
});
