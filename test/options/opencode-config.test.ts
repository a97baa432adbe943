/** OpenCode's config files: JSONC read by jsonc-parser, one config folder, typed warnings for a file that cannot be read. */
import { execFileSync } from "node:child_process";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  configFiles,
  findPluginOptions,
  readPackageJson,
  tuiConfigFiles,
  userPluginOptions,
} from "../../src/opencode-config.js";
import { warningText } from "../../src/rule/warnings.js";
import { tempDirs, writeTree } from "../support/temp-folder.js";

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const makeRoot = async () => realpath(await dirs.make("rulebook-config-"));

describe("opencode.json(c)", () => {
  test("comments and trailing commas are read; comment marks inside strings are text", async () => {
    const project = await makeRoot();
    await writeTree(project, {
      "opencode.jsonc": `{
  // the plugin, built locally
  "plugin": [
    /* with options */
    ["opencode-rulebook", { "extraDirs": ["a//b", "/* not a comment */"], },],
  ],
}
`,
    });
    const found = findPluginOptions({}, join(project, "home"), project, project);
    expect(found.warnings).toEqual([]);
    expect(found.path).toBe(join(project, "opencode.jsonc"));
    expect(found.raw).toEqual({ extraDirs: ["a//b", "/* not a comment */"] });
  });

  test("OpenCode 2's `plugins` key with `{ package, options }` entries gives the plugin's options too", async () => {
    const project = await makeRoot();
    await writeTree(project, {
      "opencode.json": JSON.stringify({
        plugins: ["other-plugin", { package: "opencode-rulebook", options: { extraDirs: ["shared-rules"] } }],
      }),
    });
    const found = findPluginOptions({}, join(project, "home"), project, project);
    expect(found.path).toBe(join(project, "opencode.json"));
    expect(found.raw).toEqual({ extraDirs: ["shared-rules"] });
  });

  test("a file that cannot be parsed is a warning naming file and line; its options are not used", async () => {
    const project = await makeRoot();
    await writeTree(project, {
      "opencode.json": '{\n  "plugin": [\n    ["opencode-rulebook", { "debug": }]\n  ]\n}\n',
    });
    const found = findPluginOptions({}, join(project, "home"), project, project);
    expect(found.raw).toBeUndefined();
    expect(found.warnings).toMatchObject([
      { code: "config-invalid", severity: "warning", path: join(project, "opencode.json"), line: 3 },
    ]);
    expect(warningText(found.warnings[0]!)).toBe(
      "cannot be read as JSON (value expected); its plugin options were not used",
    );
  });

  test.each([
    ["empty", ""],
    ["only a comment", "// nothing\n"],
    ["text after the object", '{ "plugin": [] } extra'],
  ])("%s: a warning", async (_what, text) => {
    const project = await makeRoot();
    await writeTree(project, { "opencode.json": text });
    expect(findPluginOptions({}, join(project, "home"), project, project).warnings).toMatchObject([
      { code: "config-invalid" },
    ]);
  });

  test("the last file that lists the plugin gives its options", async () => {
    const project = await makeRoot();
    const xdg = await makeRoot();
    await writeTree(xdg, {
      "opencode/opencode.json": JSON.stringify({ plugin: [["opencode-rulebook", { debug: true }]] }),
    });
    await writeTree(project, {
      ".opencode/opencode.json": JSON.stringify({ plugin: [["opencode-rulebook@1.0.0", { subagents: false }]] }),
    });
    const found = findPluginOptions({ XDG_CONFIG_HOME: xdg }, join(project, "home"), project, project);
    expect(found).toEqual({
      raw: { subagents: false },
      path: join(project, ".opencode", "opencode.json"),
      warnings: [],
    });
    expect(userPluginOptions({ XDG_CONFIG_HOME: xdg }, join(project, "home")).raw).toEqual({ debug: true });
  });
});

describe("the user's config folder", () => {
  test("an empty OPENCODE_CONFIG_DIR counts as unset, as for the global rules folder", () => {
    const files = configFiles({ OPENCODE_CONFIG_DIR: "", XDG_CONFIG_HOME: "/xdg" }, "/home/ada", "/repo", "/repo");
    expect(files.slice(0, 3)).toEqual([
      join("/xdg", "opencode", "opencode.jsonc"),
      join("/xdg", "opencode", "opencode.json"),
      join("/xdg", "opencode", "config.json"),
    ]);
    expect(configFiles({ OPENCODE_CONFIG_DIR: "" }, "/home/ada", "/repo", "/repo")[0]).toBe(
      join("/home/ada", ".config", "opencode", "opencode.jsonc"),
    );
    expect(configFiles({ OPENCODE_CONFIG_DIR: "/cfg" }, "/home/ada", "/repo", "/repo")[0]).toBe(
      join("/cfg", "opencode.jsonc"),
    );
  });

  test("OPENCODE_CONFIG is added after the global files, relative to the directory; empty, it is not", () => {
    expect(configFiles({ OPENCODE_CONFIG: "my.json" }, "/home/ada", "/repo/app", "/repo")[3]).toBe("/repo/app/my.json");
    expect(configFiles({ OPENCODE_CONFIG: "" }, "/home/ada", "/repo", "/repo")[3]).toBe(
      join("/repo", "opencode.jsonc"),
    );
  });
});

describe("tui.json", () => {
  test("the global files, $OPENCODE_TUI_CONFIG, then each folder's and its .opencode's, from the worktree down", () => {
    expect(
      tuiConfigFiles(
        { XDG_CONFIG_HOME: "/xdg", OPENCODE_TUI_CONFIG: "my-tui.json" },
        "/home/ada",
        "/repo/app",
        "/repo",
      ),
    ).toEqual([
      "/xdg/opencode/tui.json",
      "/xdg/opencode/tui.jsonc",
      "/repo/app/my-tui.json",
      "/repo/tui.json",
      "/repo/tui.jsonc",
      "/repo/.opencode/tui.json",
      "/repo/.opencode/tui.jsonc",
      "/repo/app/tui.json",
      "/repo/app/tui.jsonc",
      "/repo/app/.opencode/tui.json",
      "/repo/app/.opencode/tui.jsonc",
    ]);
  });
});

describe("a plugin folder's package.json", () => {
  test("read as JSON; none there is undefined, one that is not JSON or too large is null", async () => {
    const root = await makeRoot();
    await writeTree(root, {
      "ours/package.json": JSON.stringify({ name: "opencode-rulebook" }),
      "broken/package.json": "{ name",
      "huge/package.json": JSON.stringify({ name: "opencode-rulebook", padding: "x".repeat(100_000) }),
    });
    expect(readPackageJson(join(root, "ours"))).toEqual({ name: "opencode-rulebook" });
    expect(readPackageJson(join(root, "none"))).toBeUndefined();
    expect(readPackageJson(join(root, "broken"))).toBeNull();
    expect(readPackageJson(join(root, "huge"))).toBeNull();
  });

  test.skipIf(process.platform === "win32")("a FIFO named package.json is not waited on", async () => {
    const root = await makeRoot();
    execFileSync("mkfifo", [join(root, "package.json")]);
    expect(readPackageJson(root)).toBeNull();
  });
});
