/**
 * Which packs each owner names (src/pack-config.ts), read from where each
 * writes: the user's global opencode.json, the project's, the options the
 * host handed the plugin, and the administrator's `rulebook.json` beside the
 * managed rules folder; each owner's lock and cache in its own place. And
 * the `packs` option itself (src/options.ts).
 */
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_MAX_RULE_BYTES } from "../../src/discover/discover.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { loadRules } from "../../src/formats/load.js";
import { parseOptions } from "../../src/options.js";
import { configuredPacks, type PackIo } from "../../src/pack-config.js";
import { loadPacks } from "../../src/packs/load-packs.js";
import { warningText } from "../../src/rule/warnings.js";
import { packTree } from "../support/pack-tree.js";
import type { TempTree } from "../support/temp-folder.js";

let tree: TempTree;
let io: PackIo;
let managedFolder: string;

beforeEach(async () => {
  ({ tree, io, managedFolder } = await packTree("rulebook-pack-config-"));
});
afterEach(() => tree.cleanup());

const userConfigFolder = () => join(tree.configHome, "opencode");
const entry = (packs: unknown) => JSON.stringify({ plugin: [["opencode-rulebook", { packs }]] });
const writeUser = (packs: unknown) => tree.write(userConfigFolder(), { "opencode.json": entry(packs) });
const writeProject = (packs: unknown, file = "opencode.json") => tree.write(tree.project, { [file]: entry(packs) });
const owners = (config = configuredPacks(io)) => config.packs.map(({ spec, place }) => [spec, place.owner]);

describe("the user's and the project's packs", () => {
  test("packs in the user's global opencode.json are the user's, pinned by a lock in the config folder", async () => {
    await writeUser(["@acme/rules"]);
    const config = configuredPacks(io);
    expect(config.warnings).toEqual([]);
    expect(config.packs).toEqual([
      {
        spec: "@acme/rules",
        place: expect.objectContaining({
          owner: "user",
          configFile: join(userConfigFolder(), "opencode.json"),
          lockFile: join(userConfigFolder(), "rulebook.lock"),
        }),
      },
    ]);
    expect(config.packs[0]?.place.npmFrom[0]).toBe(userConfigFolder());
  });

  test("packs in the project's opencode.json are the repository's, pinned by .opencode/rulebook.lock in the project", async () => {
    await writeProject(["@acme/rules", "github:acme/policy#v1"]);
    const config = configuredPacks(io);
    expect(owners(config)).toEqual([
      ["@acme/rules", "repository"],
      ["github:acme/policy#v1", "repository"],
    ]);
    for (const { place } of config.packs) {
      expect(place).toMatchObject({
        configFile: join(tree.project, "opencode.json"),
        lockFile: join(tree.project, ".opencode", "rulebook.lock"),
      });
      expect(place.npmFrom[0]).toBe(tree.project);
    }
  });

  test("a folder pack keeps the file that names it: its path is read from that file's folder", async () => {
    await writeProject(["./team"], ".opencode/opencode.json");
    await tree.write(tree.project, {
      ".opencode/team/review.md": "Review every change.",
      "team/review.md": "The wrong folder.",
    });
    const config = configuredPacks(io);
    expect(config.packs.map(({ place }) => place.configFile)).toEqual([
      join(tree.project, ".opencode", "opencode.json"),
    ]);
    const loaded = await loadRules(
      {
        env: io.env,
        home: tree.home,
        directory: tree.project,
        worktree: tree.project,
        fs: nodeRuleFs,
        maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
      },
      { packs: config.packs, sources: [] },
    );
    expect(loaded.warnings.map(warningText)).toEqual([]);
    expect(loaded.rules.map((rule) => [rule.name, rule.content])).toEqual([["review", "Review every change."]]);
  });

  test("a pack both name is read once, as the user's; each owner's commands still see it as theirs", async () => {
    await writeUser(["@acme/rules"]);
    await writeProject(["@acme/rules", "@acme/api-rules"]);
    expect(owners()).toEqual([
      ["@acme/rules", "user"],
      ["@acme/rules", "repository"],
      ["@acme/api-rules", "repository"],
    ]);
    const context = { ...io, fs: nodeRuleFs, maxRuleBytes: DEFAULT_MAX_RULE_BYTES };
    const read = (await loadPacks(context, configuredPacks(io).packs)).packs.map(({ configured }) => [
      configured.spec,
      configured.place.owner,
    ]);
    expect(read).toEqual([
      ["@acme/rules", "user"],
      ["@acme/api-rules", "repository"],
    ]);
  });

  test("OpenCode 2's `plugins` entry with { package, options } names packs too", async () => {
    await tree.write(tree.project, {
      "opencode.json": JSON.stringify({
        plugins: ["another-plugin", { package: "opencode-rulebook", options: { packs: ["@acme/rules"] } }],
      }),
    });
    expect(owners()).toEqual([["@acme/rules", "repository"]]);
  });

  test("packs handed to the plugin that no config file names are the project's, the least trusted owner", async () => {
    await writeUser(["@acme/rules"]);
    const config = configuredPacks(io, ["@acme/rules", "@acme/handed"]);
    expect(owners(config)).toEqual([
      ["@acme/rules", "user"],
      ["@acme/rules", "repository"],
      ["@acme/handed", "repository"],
    ]);
    expect(config.packs[2]?.place).toMatchObject({
      configFile: join(tree.project, "opencode.json"),
      lockFile: join(tree.project, ".opencode", "rulebook.lock"),
    });
  });

  test("no config names a pack: none, and no warning", () => {
    expect(configuredPacks(io)).toEqual({ packs: [], warnings: [] });
  });
});

describe("the administrator's rulebook.json", () => {
  test("beside the managed rules folder: its packs are managed, with the lock and the pack cache beside it too", async () => {
    await tree.write(managedFolder, {
      "rulebook.json": JSON.stringify({ packs: ["github:acme/policy#v3", "@acme/rules"] }),
    });
    await writeUser(["@acme/rules"]);
    const config = configuredPacks(io);
    expect(config.warnings).toEqual([]);
    // The user's naming of a managed pack changes nothing: it is read once, as the managed tier's (load-packs.ts).
    expect(owners(config)).toEqual([
      ["github:acme/policy#v3", "managed"],
      ["@acme/rules", "managed"],
      ["@acme/rules", "user"],
    ]);
    expect(config.packs[0]?.place).toEqual({
      owner: "managed",
      configFile: join(managedFolder, "rulebook.json"),
      lockFile: join(managedFolder, "rulebook.lock"),
      gitCache: join(managedFolder, "rulebook-packs"),
      npmFrom: [managedFolder],
    });
  });

  test.skipIf(process.platform === "win32")(
    "a rulebook.json every user may write to is not read, with a warning naming it",
    async () => {
      const [file] = await tree.write(managedFolder, { "rulebook.json": JSON.stringify({ packs: ["@evil/rules"] }) });
      await chmod(file as string, 0o666);
      const config = configuredPacks(io);
      expect(config.packs).toEqual([]);
      expect(config.warnings.map((warning) => [warning.code, warning.path])).toEqual([["managed-not-trusted", file]]);
      expect(warningText(config.warnings[0]!)).toContain("is writable by every user (mode 666)");
    },
  );

  test("a packs value that is not a list of specs is reported against the file, and nothing is read from it", async () => {
    const [file] = await tree.write(managedFolder, { "rulebook.json": JSON.stringify({ packs: "@acme/rules" }) });
    const config = configuredPacks(io);
    expect(config.packs).toEqual([]);
    expect(config.warnings.map((warning) => [warning.code, warning.path])).toEqual([["plugin-options", file]]);
  });
});

describe("the packs option", () => {
  test.each([
    ["a single spec, not a list", "@acme/rules"],
    ["a list holding something other than text", ["@acme/rules", 3]],
    ["a list holding an empty spec", [""]],
    ["an object", { "@acme/rules": true }],
  ])("%s is reported, and no pack is read", (_what, value) => {
    const { options, errors } = parseOptions({ packs: value }, {});
    expect(options.packs).toEqual([]);
    expect(errors).toEqual([
      expect.stringMatching(/^option "packs" should be a list of at most \d+ pack specs .*; default \[\] used$/),
    ]);
  });

  test("a list of specs is taken as written", () => {
    expect(parseOptions({ packs: ["@acme/rules", "github:acme/policy#v1", "./team"] }, {})).toEqual({
      options: expect.objectContaining({ packs: ["@acme/rules", "github:acme/policy#v1", "./team"] }),
      errors: [],
    });
  });
});
