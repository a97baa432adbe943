/**
 * The plugin's start reads OpenCode's config files and the managed
 * `rulebook.json` without a synchronous call (opencode-config.ts,
 * pack-config.ts `…Async`): it finds what the command line's synchronous
 * reading finds, file for file, warning for warning.
 */
import { execFileSync } from "node:child_process";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  findPluginOptions,
  findPluginOptionsAsync,
  userPluginOptions,
  userPluginOptionsAsync,
} from "../../src/opencode-config.js";
import { configuredPacks, configuredPacksAsync, type PackIo } from "../../src/pack-config.js";
import { packTree } from "../support/pack-tree.js";
import type { TempTree } from "../support/temp-folder.js";

let tree: TempTree;
let io: PackIo;
let managedFolder: string;

beforeEach(async () => {
  ({ tree, io, managedFolder } = await packTree("rulebook-config-async-"));
});
afterEach(() => tree.cleanup());

const userFolder = () => join(tree.configHome, "opencode");

/** Everything each reading finds, synchronous and not. */
async function bothReadings() {
  const { env, home, directory, worktree } = io;
  return {
    sync: {
      user: userPluginOptions(env, home),
      found: findPluginOptions(env, home, directory, worktree),
      packs: configuredPacks(io, ["handed-pack"]),
    },
    async: {
      user: await userPluginOptionsAsync(env, home),
      found: await findPluginOptionsAsync(env, home, directory, worktree),
      packs: await configuredPacksAsync(io, ["handed-pack"]),
    },
  };
}

describe("config files read without a synchronous call", () => {
  test("the user's path spec (known by its package.json), the project's JSONC, a broken file, the managed packs", async () => {
    await tree.write(userFolder(), {
      "opencode.json": JSON.stringify({ plugin: [["./plugins/rulebook-fork", { packs: ["@user/rules"] }]] }),
      "plugins/rulebook-fork/package.json": JSON.stringify({ name: "opencode-rulebook" }),
    });
    await tree.write(tree.project, {
      "opencode.jsonc": '// the project\'s\n{ "plugin": [["opencode-rulebook", { "packs": ["@team/rules",], }]] }',
      ".opencode/opencode.json": "{ broken",
    });
    await tree.write(managedFolder, { "rulebook.json": JSON.stringify({ packs: ["@acme/policy"] }) });
    const { sync, async } = await bothReadings();
    expect(async).toEqual(sync);
    // The comparison means something: each part was found.
    expect(sync.user.path).toBe(join(userFolder(), "opencode.json"));
    expect(sync.found.path).toBe(join(tree.project, "opencode.jsonc"));
    expect(sync.found.warnings.map((warning) => warning.code)).toEqual(["config-invalid"]);
    expect(sync.packs.packs.map(({ spec, place }) => [spec, place.owner])).toEqual([
      ["@acme/policy", "managed"],
      ["@user/rules", "user"],
      ["@team/rules", "repository"],
      ["handed-pack", "repository"],
    ]);
  });

  test.skipIf(process.platform === "win32")(
    "a managed file others may write is refused alike; a FIFO named package.json or opencode.json is never waited on",
    async () => {
      const [file] = await tree.write(managedFolder, { "rulebook.json": JSON.stringify({ packs: ["@evil/rules"] }) });
      await chmod(file as string, 0o666);
      await tree.write(userFolder(), { "opencode.json": JSON.stringify({ plugin: ["./fifo-plugin"] }) });
      // The folder above names this package: read on only past a package.json that cannot be opened, not a FIFO's.
      await tree.write(userFolder(), { "package.json": JSON.stringify({ name: "opencode-rulebook" }) });
      await tree.write(join(userFolder(), "fifo-plugin"), { "index.js": "" });
      execFileSync("mkfifo", [join(userFolder(), "fifo-plugin", "package.json")]);
      const { sync, async } = await bothReadings();
      expect(async).toEqual(sync);
      expect(sync.packs.warnings.map((warning) => warning.code)).toEqual(["managed-not-trusted"]);
      expect(sync.user.path).toBeUndefined();
      // A config file that is a FIFO: only the reading without a synchronous call can be asked (the other would hang).
      execFileSync("mkfifo", [join(tree.project, "opencode.json")]);
      const found = await findPluginOptionsAsync(io.env, io.home, io.directory, io.worktree);
      expect(found).toEqual({ raw: undefined, warnings: [] });
    },
  );
});
