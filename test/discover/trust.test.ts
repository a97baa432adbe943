/**
 * The trust boundary (docs/security.md) and the bounds of every walk: what a
 * hostile or unlucky repository can no longer do through discovery.
 */
import type { Dirent, Stats } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { RuleFs } from "../../src/discover/fs.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { MAX_WALK_WARNINGS, WALK_LIMITS } from "../../src/discover/walk-limits.js";
import { type Box, makeBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

let box: Box;
beforeEach(async () => {
  box = await makeBox();
});
afterEach(() => box.cleanup());

const SECRET = "SECRET-aws_secret_access_key=abc123";
const outside = (realPath: string, what: "file" | "folder") =>
  `leads through a symlink to ${realPath}, outside the repository (${box.project}); a repository's rule ${what}s are read only from inside it, so this ${what} was skipped`;

/** The user's secrets, outside the repository. */
async function secrets(): Promise<{ credentials: string; folder: string }> {
  await box.write(box.home, {
    ".aws/credentials": SECRET,
    "secrets/token.md": SECRET,
    ".config/opencode/opencode.json": `{"provider":{"x":{"apiKey":"${SECRET}"}}}`,
  });
  return { credentials: join(box.home, ".aws/credentials"), folder: join(box.home, "secrets") };
}

describe("a repository's rule files are read only from inside it", () => {
  test("a rule file that is a symlink to ~/.aws/credentials is skipped, with the link and its target named", async () => {
    const { credentials } = await secrets();
    await box.link(credentials, join(box.project, ".opencode/rules/x.md"));
    await box.write(box.project, { ".opencode/rules/ok.md": "Use tabs." });
    const loaded = await box.load();
    expect(loaded.rules.map((rule) => rule.name)).toEqual(["ok"]);
    expect(shown(loaded.warnings)).toEqual([
      { path: join(box.project, ".opencode/rules/x.md"), message: outside(credentials, "file") },
    ]);
    expect(JSON.stringify(loaded.rules)).not.toContain(SECRET);
  });

  test("a .cursorrules that is a symlink outside is skipped", async () => {
    const { credentials } = await secrets();
    await box.link(credentials, join(box.project, ".cursorrules"));
    const loaded = await box.load();
    expect(loaded.rules).toEqual([]);
    expect(shown(loaded.warnings)).toEqual([
      { path: join(box.project, ".cursorrules"), message: outside(credentials, "file") },
    ]);
  });

  test("rules folders that are symlinks outside (.cursor/rules, .claude/rules, a parent .cursor) are not walked, not watched, and widen nothing", async () => {
    const { folder } = await secrets();
    await box.write(box.root, { "etc/passwd.md": SECRET, "etc/steering/k.md": SECRET });
    await box.link(join(box.root, "etc"), join(box.project, ".cursor/rules"));
    await box.link(folder, join(box.project, ".claude/rules"));
    await box.link(join(box.root, "etc"), join(box.project, ".kiro"));
    // Another rule tries to read through the folders the links named.
    await box.write(box.project, {
      ".opencode/rules/ref.md": `#[[file:${join(box.root, "etc/passwd.md")}]]\n@${join(folder, "token.md")}`,
    });
    const loaded = await box.load();
    expect(loaded.rules.map((rule) => [rule.name, rule.content])).toEqual([
      ["ref", `#[[file:${join(box.root, "etc/passwd.md")}]]\n@${join(folder, "token.md")}`],
    ]);
    const expected = [
      [join(box.project, ".cursor/rules"), outside(join(box.root, "etc"), "folder")],
      [join(box.project, ".claude/rules"), outside(folder, "folder")],
      [
        join(box.project, ".opencode/rules/ref.md"),
        `reference #[[file:${join(box.root, "etc/passwd.md")}]] points outside the repository (${join(box.root, "etc/passwd.md")}); refused; left as text`,
      ],
      [
        join(box.project, ".opencode/rules/ref.md"),
        `reference @${join(folder, "token.md")} points outside the repository (${join(folder, "token.md")}); refused; left as text`,
      ],
      [join(box.project, ".kiro/steering"), outside(join(box.root, "etc/steering"), "folder")],
    ];
    // Sources search at once: the order of their warnings is not the point here.
    expect(shown(loaded.warnings).map((w) => [w.path, w.message])).toEqual(expect.arrayContaining(expected));
    expect(loaded.warnings.map((w) => w.code).sort()).toEqual([
      "outside-repository",
      "outside-repository",
      "outside-repository",
      "reference-outside",
      "reference-outside",
    ]);
    expect(loaded.warnings).toHaveLength(expected.length);
    expect(loaded.folders).not.toContain(join(box.project, ".cursor/rules"));
    expect(loaded.folders).not.toContain(join(box.project, ".claude/rules"));
    expect(JSON.stringify(loaded)).not.toContain(SECRET);
  });

  test("a repository rule cannot include the user's OpenCode config (API keys) through a relative path", async () => {
    await secrets();
    const rel = "../../../home/.config/opencode/opencode.json";
    await box.write(box.project, { ".opencode/rules/steal.md": `#[[file:${rel}]]\n@${rel}` });
    const loaded = await box.load();
    expect(loaded.rules[0]?.content).toBe(`#[[file:${rel}]]\n@${rel}`);
    expect(shown(loaded.warnings).map((w) => w.message)).toEqual([
      `reference #[[file:${rel}]] points outside the repository (${join(box.home, ".config/opencode/opencode.json")}); refused; left as text`,
      `reference @${rel} points outside the repository (${join(box.home, ".config/opencode/opencode.json")}); refused; left as text`,
    ]);
    expect(JSON.stringify(loaded)).not.toContain(SECRET);
  });

  test("a symlink to / inside a rules folder is refused at once", async () => {
    await box.link("/", join(box.project, ".opencode/rules/root"));
    await box.write(box.project, { ".opencode/rules/ok.md": "OK." });
    const loaded = await box.load();
    expect(loaded.rules.map((rule) => rule.name)).toEqual(["ok"]);
    expect(shown(loaded.warnings)).toEqual([
      { path: join(box.project, ".opencode/rules/root"), message: outside("/", "folder") },
    ]);
  });

  test("symlinks that stay inside the repository are followed", async () => {
    await box.write(box.project, { "docs/rules/team.md": "Team rule.", "docs/one.md": "One." });
    await box.link(join(box.project, "docs/rules"), join(box.project, ".opencode/rules/shared"));
    await box.link(join(box.project, "docs/one.md"), join(box.project, ".cursorrules"));
    const loaded = await box.load();
    expect(loaded.warnings).toEqual([]);
    expect(loaded.rules.map((rule) => [rule.name, rule.content])).toEqual([
      ["cursorrules", "One."],
      ["shared/team", "Team rule."],
    ]);
  });
});

describe("the user's own folders are the user's", () => {
  test("symlinks in the global rules folder are followed, and its rules may include from the config folder", async () => {
    // References are relative to the rule file as found (the link), as a person reads the folder.
    await box.write(box.root, { "dotfiles/rules/mine.md": "Mine.\n@../snippets/s.md" });
    await box.write(join(box.home, ".config/opencode"), { "snippets/s.md": "Snippet." });
    await mkdir(join(box.home, ".config/opencode/rules"), { recursive: true });
    await box.link(join(box.root, "dotfiles/rules/mine.md"), join(box.home, ".config/opencode/rules/mine.md"));
    const loaded = await box.load();
    expect(loaded.warnings).toEqual([]);
    expect(loaded.rules.map((rule) => [rule.scope, rule.name, rule.content])).toEqual([
      ["global", "mine", "Mine.\nSnippet."],
    ]);
  });

  test("extraDirs outside the repository: read only when the user's own config names them", async () => {
    await box.write(box.root, { "team/rules/t.md": "Team." });
    const team = join(box.root, "team/rules");
    const refused = await box.load({ extraDirs: [team] });
    expect(refused.rules).toEqual([]);
    expect(shown(refused.warnings)).toEqual([
      {
        path: team,
        message:
          "extraDirs names this folder outside the repository, and your own OpenCode config does not: a folder outside the repository is read only when your global opencode.json names it; skipped",
      },
    ]);
    const named = await box.load({ extraDirs: [team] }, { userExtraDirs: [team] });
    expect(named.warnings).toEqual([]);
    expect(named.rules.map((rule) => [rule.source, rule.name])).toEqual([["extra", "t"]]);
  });

  test("an extraDirs folder inside the repository is the repository's: a symlink in it that leads outside is refused", async () => {
    const { credentials } = await secrets();
    await box.link(credentials, join(box.project, ".agents/rules/leak.md"));
    const loaded = await box.load({ extraDirs: [".agents/rules"] });
    expect(loaded.rules).toEqual([]);
    expect(shown(loaded.warnings)).toEqual([
      { path: join(box.project, ".agents/rules/leak.md"), message: outside(credentials, "file") },
    ]);
  });
});

describe("every walk is bounded", () => {
  test("a diamond of folder symlinks (no loop, 2^24 paths) is walked once per real folder", async () => {
    // level i holds `a` and `b`, both links to level i+1.
    const depth = 24;
    for (let i = 0; i < depth; i++) {
      await box.write(box.project, { [`.opencode/rules/d${i}/r${i}.md`]: `Rule ${i}.` });
      if (i > 0) {
        await box.link(join(box.project, `.opencode/rules/d${i}`), join(box.project, `.opencode/rules/d${i - 1}/a`));
        await box.link(join(box.project, `.opencode/rules/d${i}`), join(box.project, `.opencode/rules/d${i - 1}/b`));
      }
    }
    const loaded = await box.load();
    // Each rule file once per distinct real folder reached first by name order; nothing exponential.
    expect(loaded.files.length).toBeLessThanOrEqual(depth * depth);
    expect(loaded.warnings.every((w) => w.code === "folder-already-read")).toBe(true);
    expect(shown(loaded.warnings).every((w) => /already read through another path/.test(w.message))).toBe(true);
    expect(loaded.warnings.length).toBeLessThanOrEqual(depth * depth);
    expect(new Set(loaded.rules.map((rule) => rule.content)).size).toBe(depth);
  });

  test("an endless tree stops at the folder limit with one warning, and the source's other folders are not walked past it", async () => {
    const fs = endlessTree(join(box.project, ".opencode/rules"));
    const loaded = await box.load({ sources: ["native"] }, { fs });
    const stops = loaded.warnings.filter((w) => w.code === "walk-limit");
    expect(shown(stops).map((w) => w.message)).toEqual([
      `more than ${WALK_LIMITS.folders} folders in this source's rule folders; the walk stopped here and the rest was not read`,
    ]);
    // The depth limit is hit on the way, once per deep branch: reported up to a bound, then summed up.
    expect(loaded.warnings.length).toBeLessThanOrEqual(MAX_WALK_WARNINGS + 2);
    expect(fs.readdirCalls()).toBeLessThanOrEqual(WALK_LIMITS.folders);
  });

  test('extraDirs: ["/"] from the user\'s own config: discovery finishes, stopped by its limits', async () => {
    const loaded = await box.load({ extraDirs: ["/"], sources: ["extra"] }, { userExtraDirs: ["/"] });
    expect(loaded.warnings.some((w) => w.code === "walk-limit")).toBe(true);
  }, 60_000);
});

/** A file system in which every folder under `root` holds 10 more folders and a rule file. */
function endlessTree(root: string): RuleFs & { readdirCalls(): number } {
  let calls = 0;
  const folder = { isDirectory: () => true, isFile: () => false, isSymbolicLink: () => false } as unknown as Stats;
  const under = (path: string) => path === root || path.startsWith(`${root}/`);
  return {
    readdirCalls: () => calls,
    async readdir(path) {
      if (!under(path)) return nodeRuleFs.readdir(path);
      calls++;
      const entry = (name: string, dir: boolean) =>
        ({ name, isDirectory: () => dir, isFile: () => !dir, isSymbolicLink: () => false }) as unknown as Dirent;
      return [...Array.from({ length: 10 }, (_, i) => entry(`f${i}`, true)), entry("r.md", false)];
    },
    async stat(path) {
      if (!under(path)) return nodeRuleFs.stat(path);
      return path.endsWith(".md")
        ? ({ ...folder, isDirectory: () => false, isFile: () => true, size: 3 } as unknown as Stats)
        : folder;
    },
    realpath: async (path) => (under(path) ? path : nodeRuleFs.realpath(path)),
    readFile: async (path, max) => (under(path) ? new TextEncoder().encode("R.") : nodeRuleFs.readFile(path, max)),
  };
}
