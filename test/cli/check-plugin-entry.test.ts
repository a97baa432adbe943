/**
 * `check` reads the plugin's options from every entry form OpenCode accepts
 * for this package, among them the folder path `opencode plugin <folder>`
 * writes (the folder of any name, known by its package.json), and says that
 * options given to the Rules panel in `tui.json` are not read.
 */
import { join } from "node:path";
import { beforeEach, expect, test } from "vitest";
import { projectTree } from "../support/cli-fixtures.js";
import { type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox((box) => box.write(projectTree()));
let box: Sandbox;
let clone: string;
let other: string;
beforeEach(async () => {
  box = current();
  // A clone of this package under another name, and another plugin beside it.
  clone = join(box.root, "src", "rulebook");
  other = join(box.root, "src", "other-plugin");
  await box.write({
    [join(clone, "package.json")]: JSON.stringify({ name: "opencode-rulebook", version: "0.1.0" }),
    [join(clone, "dist", "index.js")]: "export default {};\n",
    [join(other, "package.json")]: JSON.stringify({ name: "other-plugin", version: "1.0.0" }),
    [join(other, "dist", "index.js")]: "export default {};\n",
  });
});

const OUT_OF_RANGE =
  /^warning (\S+): plugin options: option "maxMessageBytes" should be a whole number of bytes from 512 to 4194304, found 5; default \d+ used$/m;

test.each([
  ["an absolute folder path", "opencode.json", () => clone],
  [
    "a path relative to the config file's folder, as `opencode plugin ../folder` writes it",
    ".opencode/opencode.json",
    () => "../../src/rulebook",
  ],
  ["a file:// URL to the folder", "opencode.json", () => `file://${clone}`],
  ["a path to its dist/index.js", "opencode.json", () => join(clone, "dist", "index.js")],
])("an out-of-range option given to %s is reported on that config file", async (_form, file, spec) => {
  await box.write({ [file]: JSON.stringify({ plugin: [[spec(), { maxMessageBytes: 5 }]] }) });
  const { stdout, code } = box.run(["check"]);
  expect(code).toBe(0);
  expect(OUT_OF_RANGE.exec(stdout)?.[1]).toBe(file);
});

test("OpenCode 2's `plugins` entry with a folder path: the same", async () => {
  await box.write({
    "opencode.json": JSON.stringify({ plugins: [{ package: clone, options: { maxMessageBytes: 5 } }] }),
  });
  expect(OUT_OF_RANGE.exec(box.run(["check"]).stdout)?.[1]).toBe("opencode.json");
});

test("another package's folder or entry file is not this plugin: its options are neither reported nor used", async () => {
  await box.write({
    "opencode.json": JSON.stringify({
      plugin: [
        ["opencode-rulebook", { maxMessageBytes: 900 }],
        [other, { maxMessageBytes: 5 }],
        [join(other, "dist", "index.js"), { maxMessageBytes: 5 }],
      ],
    }),
    ".opencode/rules/huge.md": `---\npriority: 1\n---\n${"x".repeat(1000)}\n`,
  });
  const { stdout } = box.run(["check"]);
  expect(stdout).not.toMatch(OUT_OF_RANGE);
  // The budget given to this plugin, before the other entries, applies: the rule is over it.
  expect(stdout).toMatch(
    /^warning \.opencode\/rules\/huge\.md: the rule is \d+ bytes as a message, over the 900-byte message budget by itself/m,
  );
});

test("options given in tui.json to a folder path are reported as not read; the Rules panel takes none", async () => {
  await box.write({ ".opencode/tui.json": JSON.stringify({ plugin: [[clone, { maxMessageBytes: 5, debug: true }]] }) });
  const { stdout, code } = box.run(["check"]);
  expect(code).toBe(0);
  expect(stdout).toContain(
    'warning .opencode/tui.json: options "maxMessageBytes", "debug" are not read: the Rules panel takes none (give them in opencode.json)\n',
  );
  // Nothing is read from there as the plugin's options.
  expect(stdout).not.toMatch(OUT_OF_RANGE);
});

test("tui.json entries without options, or for another package, are fine", async () => {
  await box.write({
    ".opencode/tui.json": JSON.stringify({ plugin: ["../../src/rulebook", [other, { debug: true }]] }),
  });
  const { stdout } = box.run(["check"]);
  expect(stdout).not.toContain("tui.json");
  expect(stdout).toMatch(/0 errors, 0 warnings\n$/);
});
