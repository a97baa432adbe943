/**
 * The search for rules folders below the directory (Cursor's `.cursor/rules`,
 * Windsurf's `.windsurf/rules`): one walk of the project's tree, breadth
 * first, within its bounds, that enters nothing git ignores.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { MAX_IGNORE_FILE_BYTES } from "../../src/discover/gitignore.js";
import { NESTED_SEARCH } from "../../src/discover/nested-search.js";
import { type Box, makeBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";
import { eacces } from "../support/fake-fs.js";

let box: Box;
beforeEach(async () => {
  box = await makeBox();
});
afterEach(() => box.cleanup());

const namesOf = async (sources: string[], overrides = {}) => {
  const loaded = await box.load({ sources }, overrides);
  return { names: loaded.rules.map((rule) => rule.name).sort(), warnings: loaded.warnings };
};
const cursorNames = (overrides = {}) => namesOf(["cursor"], overrides);

/** Runs `work` with the folder limit lowered to `maxFolders`. */
async function withFolderLimit(maxFolders: number, work: () => Promise<void>): Promise<void> {
  const saved = NESTED_SEARCH.maxFolders;
  NESTED_SEARCH.maxFolders = maxFolders;
  try {
    await work();
  } finally {
    NESTED_SEARCH.maxFolders = saved;
  }
}

describe("the nested search", () => {
  test("down to 8 levels below the directory; deeper, hidden, dependency and build folders are not searched, without a warning", async () => {
    const eight = "a/b/c/d/e/f/g/h";
    await box.write(box.project, {
      [`${eight}/.cursor/rules/deep.mdc`]: "Deep.",
      [`${eight}/i/.cursor/rules/deeper.mdc`]: "Too deep.",
      "dist/.cursor/rules/built.mdc": "Build output.",
      "vendor/lib/.cursor/rules/vendored.mdc": "Vendored.",
      "node_modules/dep/.cursor/rules/dep.mdc": "Dependency.",
      ".hidden/.cursor/rules/hidden.mdc": "Hidden.",
      "pkg/.cursor/rules/p.mdc": "In pkg.",
    });
    const { names, warnings } = await cursorNames();
    expect(names).toEqual([`${eight}/deep`, "pkg/p"]);
    expect(warnings).toEqual([]);
  });

  test("past the folder limit: a warning (not an error), and the shallow folders were searched first", async () => {
    await withFolderLimit(4, async () => {
      await box.write(box.project, {
        "a/deep/deeper/.cursor/rules/x.mdc": "Deep.",
        "b/.cursor/rules/x.mdc": "B.",
        "c/.cursor/rules/x.mdc": "C.",
        "d/.cursor/rules/x.mdc": "D.",
      });
      const { names, warnings } = await cursorNames();
      // The project, a, b and c are searched; then the limit, before d and a/deep.
      expect(names).toEqual(["b/x", "c/x"]);
      expect(warnings).toMatchObject([{ code: "nested-search-limit", severity: "warning", path: box.project }]);
      expect(shown(warnings)[0]?.message).toBe(
        "more than 4 folders below the project; nested rules folders (.cursor/rules, .windsurf/rules) past them were not searched",
      );
    });
  });

  test("Cursor and Windsurf share one search: its limit is reported once, and both find the folders it reached", async () => {
    await withFolderLimit(3, async () => {
      await box.write(box.project, {
        "a/.cursor/rules/x.mdc": "A.",
        "b/.windsurf/rules/y.md": "---\ntrigger: always_on\n---\nB.",
        "c/.windsurf/rules/z.md": "---\ntrigger: always_on\n---\nC.",
      });
      const { names, warnings } = await namesOf(["cursor", "windsurf"]);
      expect(names).toEqual(["a/x", "b/y"]);
      expect(warnings.map((warning) => warning.code)).toEqual(["nested-search-limit"]);
    });
  });

  test("a sub-folder that cannot be read is a warning (not an error); the directory itself is left to the other sources", async () => {
    await box.write(box.project, { "locked/.cursor/rules/x.mdc": "Locked.", "open/.cursor/rules/x.mdc": "Open." });
    const locked = join(box.project, "locked");
    const fs = {
      ...nodeRuleFs,
      readdir: async (path: string) =>
        path === locked ? Promise.reject(eacces("scandir", path)) : nodeRuleFs.readdir(path),
    };
    const { names, warnings } = await cursorNames({ fs });
    expect(names).toEqual(["open/x"]);
    expect(warnings).toMatchObject([
      { code: "nested-folder-unreadable", severity: "warning", path: locked, reason: "EACCES" },
    ]);
    expect(shown(warnings)[0]?.message).toBe(
      "folder cannot be read (EACCES); nested rules folders in it were not searched",
    );

    const root = {
      ...nodeRuleFs,
      readdir: async (path: string) =>
        path === box.project ? Promise.reject(eacces("scandir", path)) : nodeRuleFs.readdir(path),
    };
    expect((await cursorNames({ fs: root })).warnings).toEqual([]);
  });
});

describe("the nested search enters nothing git ignores", () => {
  const rule = "A rule.";
  const windsurfRule = "---\ntrigger: always_on\n---\nA rule.";
  const ignoredTree = {
    // Root: a directory-only pattern, an anchored one, a negation of an anchored wildcard.
    ".gitignore": "# build output\ngenerated/\n/docs-build\n/tmp-*/\n!/tmp-keep/\n",
    ".git/info/exclude": "local-data/\n",
    "generated/x/.cursor/rules/g.mdc": rule,
    "services/generated/.windsurf/rules/g.md": windsurfRule,
    "docs-build/.cursor/rules/d.mdc": rule,
    "services/docs-build/.cursor/rules/kept.mdc": rule,
    "tmp-build/.windsurf/rules/t.md": windsurfRule,
    "tmp-keep/.windsurf/rules/kept.md": windsurfRule,
    "local-data/.cursor/rules/l.mdc": rule,
    "node_modules/dep/.windsurf/rules/d.md": windsurfRule,
    // A nested .gitignore covers its folder and below; a deeper one re-includes.
    "services/.gitignore": "legacy/\n",
    "services/legacy/.cursor/rules/old.mdc": rule,
    "services/api/.gitignore": "!legacy/\n",
    "services/api/legacy/.cursor/rules/kept.mdc": rule,
    "services/api/.windsurf/rules/kept.md": windsurfRule,
    // A pattern of a nested .gitignore does not reach its siblings.
    "apps/web/.gitignore": "storybook/\n",
    "apps/web/storybook/.cursor/rules/s.mdc": rule,
    "apps/storybook/.cursor/rules/kept.mdc": rule,
  };
  const found = [
    "apps/storybook/kept",
    "services/api/kept",
    "services/api/legacy/kept",
    "services/docs-build/kept",
    "tmp-keep/kept",
  ];

  test(".gitignore at every level (negation, anchored and directory-only patterns), .git/info/exclude and node_modules", async () => {
    await box.write(box.project, ignoredTree);
    const { names, warnings } = await namesOf(["cursor", "windsurf"]);
    expect(names).toEqual(found);
    expect(warnings).toEqual([]);
  });

  test("working in a sub-folder, the .gitignore files above it apply to the search below it", async () => {
    await box.write(box.project, ignoredTree);
    const { names } = await namesOf(["cursor", "windsurf"], { directory: join(box.project, "services") });
    expect(names).toEqual(["services/api/kept", "services/api/legacy/kept", "services/docs-build/kept"]);
  });

  test("an ignore file larger than the limit, or unreadable, is not read: what it names is searched", async () => {
    await box.write(box.project, {
      ".gitignore": `big/\n#${"x".repeat(MAX_IGNORE_FILE_BYTES)}\n`,
      "big/.cursor/rules/b.mdc": rule,
      "pkg/.gitignore": "locked/\n",
      "pkg/locked/.cursor/rules/l.mdc": rule,
    });
    const unreadable = join(box.project, "pkg/.gitignore");
    const fs = {
      ...nodeRuleFs,
      readFile: (path: string, maxBytes: number, size?: number) =>
        path === unreadable ? Promise.reject(eacces("open", path)) : nodeRuleFs.readFile(path, maxBytes, size),
    };
    const { names, warnings } = await cursorNames({ fs });
    expect(names).toEqual(["big/b", "pkg/locked/l"]);
    expect(warnings).toEqual([]);
  });
});
