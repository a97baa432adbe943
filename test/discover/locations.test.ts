import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  displayPath,
  foldersFromRoot,
  globalRulesDir,
  openCodeConfigDir,
  projectRulesDirs,
} from "../../src/discover/locations.js";

describe("globalRulesDir", () => {
  const home = "/home/ada";

  test("OPENCODE_CONFIG_DIR wins over XDG_CONFIG_HOME and home", () => {
    expect(globalRulesDir({ OPENCODE_CONFIG_DIR: "/cfg/oc", XDG_CONFIG_HOME: "/xdg" }, home)).toBe(
      join("/cfg/oc", "rules"),
    );
  });

  test("else XDG_CONFIG_HOME/opencode/rules", () => {
    expect(globalRulesDir({ XDG_CONFIG_HOME: "/xdg" }, home)).toBe(join("/xdg", "opencode", "rules"));
  });

  test("else ~/.config/opencode/rules", () => {
    expect(globalRulesDir({}, home)).toBe(join(home, ".config", "opencode", "rules"));
  });

  test("empty variables count as unset", () => {
    expect(globalRulesDir({ OPENCODE_CONFIG_DIR: "", XDG_CONFIG_HOME: "" }, home)).toBe(
      join(home, ".config", "opencode", "rules"),
    );
    expect(globalRulesDir({ OPENCODE_CONFIG_DIR: "", XDG_CONFIG_HOME: "/xdg" }, home)).toBe(
      join("/xdg", "opencode", "rules"),
    );
  });

  test("the real process environment is not consulted", () => {
    const saved = process.env.OPENCODE_CONFIG_DIR;
    process.env.OPENCODE_CONFIG_DIR = "/from/process/env";
    try {
      expect(globalRulesDir({}, home)).toBe(join(home, ".config", "opencode", "rules"));
    } finally {
      if (saved === undefined) delete process.env.OPENCODE_CONFIG_DIR;
      else process.env.OPENCODE_CONFIG_DIR = saved;
    }
  });
});

describe("openCodeConfigDir: one answer for the rules folder and the config files", () => {
  const home = "/home/ada";

  test("OPENCODE_CONFIG_DIR, else XDG_CONFIG_HOME/opencode, else ~/.config/opencode", () => {
    expect(openCodeConfigDir({ OPENCODE_CONFIG_DIR: "/cfg/oc", XDG_CONFIG_HOME: "/xdg" }, home)).toBe("/cfg/oc");
    expect(openCodeConfigDir({ XDG_CONFIG_HOME: "/xdg" }, home)).toBe(join("/xdg", "opencode"));
    expect(openCodeConfigDir({}, home)).toBe(join(home, ".config", "opencode"));
  });

  test("an empty variable counts as unset", () => {
    expect(openCodeConfigDir({ OPENCODE_CONFIG_DIR: "" }, home)).toBe(join(home, ".config", "opencode"));
    expect(openCodeConfigDir({ OPENCODE_CONFIG_DIR: "", XDG_CONFIG_HOME: "/xdg" }, home)).toBe(
      join("/xdg", "opencode"),
    );
    expect(openCodeConfigDir({ XDG_CONFIG_HOME: "" }, home)).toBe(join(home, ".config", "opencode"));
  });

  test("the global rules folder is its `rules`", () => {
    for (const env of [
      {},
      { OPENCODE_CONFIG_DIR: "/cfg/oc" },
      { XDG_CONFIG_HOME: "/xdg" },
      { OPENCODE_CONFIG_DIR: "" },
    ]) {
      expect(globalRulesDir(env, home)).toBe(join(openCodeConfigDir(env, home), "rules"));
    }
  });
});

describe("projectRulesDirs", () => {
  test("from the worktree root down to the directory, nearest last", () => {
    expect(projectRulesDirs("/repo/packages/app", "/repo")).toEqual([
      "/repo/.opencode/rules",
      "/repo/packages/.opencode/rules",
      "/repo/packages/app/.opencode/rules",
    ]);
  });

  test("directory equal to the worktree: just its own folder", () => {
    expect(projectRulesDirs("/repo", "/repo")).toEqual(["/repo/.opencode/rules"]);
  });

  test("directory outside the worktree: only the directory's folder", () => {
    expect(projectRulesDirs("/elsewhere/app", "/repo")).toEqual(["/elsewhere/app/.opencode/rules"]);
  });

  test("a sibling whose name starts like the worktree is outside it", () => {
    expect(projectRulesDirs("/repo-other/app", "/repo")).toEqual(["/repo-other/app/.opencode/rules"]);
  });

  test('worktree "/" (no git repository): only the directory, never every folder up to the root', () => {
    expect(projectRulesDirs("/home/ada/code/app", "/")).toEqual(["/home/ada/code/app/.opencode/rules"]);
  });

  test("empty worktree: only the directory", () => {
    expect(projectRulesDirs("/a/b", "")).toEqual(["/a/b/.opencode/rules"]);
  });

  test("foldersFromRoot lists the folders themselves, root first", () => {
    expect(foldersFromRoot("/r/a/b", "/r")).toEqual(["/r", "/r/a", "/r/a/b"]);
  });
});

describe("displayPath", () => {
  test("inside the project: project-relative with POSIX separators", () => {
    expect(displayPath("/repo/.opencode/rules/sub/x.md", "/repo", "/home/ada")).toBe(".opencode/rules/sub/x.md");
  });

  test("under home: ~/…", () => {
    expect(displayPath("/home/ada/.config/opencode/rules/g.md", "", "/home/ada")).toBe("~/.config/opencode/rules/g.md");
  });

  test("a project inside home is shown project-relative", () => {
    expect(displayPath("/home/ada/p/.opencode/rules/r.md", "/home/ada/p", "/home/ada")).toBe(".opencode/rules/r.md");
  });

  test("elsewhere: the absolute path", () => {
    expect(displayPath("/etc/rules/r.md", "/repo", "/home/ada")).toBe("/etc/rules/r.md");
  });
});
