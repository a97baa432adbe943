/**
 * Which entries of OpenCode's `plugin` / `plugins` lists are this package, for
 * every form OpenCode 1.18.33 and 2 accept (see src/plugin-spec.ts), with the
 * package.json of a path read by a stand-in.
 */
import { describe, expect, test } from "vitest";
import { isRulebookSpec, type ReadPackage } from "../../src/plugin-spec.js";

const place = { configFile: "/work/app/.opencode/opencode.json", directory: "/work/app", home: "/home/ada" };

/** A file system of package.json files by folder; `null` for one that cannot be read as JSON. */
function packages(files: Record<string, unknown>): ReadPackage & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(
    (folder: string) => {
      asked.push(folder);
      return files[folder];
    },
    { asked },
  );
}

const ours = { name: "opencode-rulebook" };

describe("an entry OpenCode hands to npm", () => {
  test.each([
    "opencode-rulebook",
    "opencode-rulebook@0.1.0",
    "opencode-rulebook@^0.1",
    "opencode-rulebook@>=0.1 <1",
    "opencode-rulebook@next",
    "opencode-rulebook@github:someone/fork",
    "npm:opencode-rulebook@0.1",
    "rules@npm:opencode-rulebook",
    "github:someone/opencode-rulebook",
    "github:someone/opencode-rulebook#v0.1.0",
    "someone/opencode-rulebook",
    "gitlab:someone/opencode-rulebook",
    "git+https://github.com/someone/opencode-rulebook.git",
    "git+ssh://git@github.com/someone/opencode-rulebook.git#main",
    "https://github.com/someone/opencode-rulebook",
    "git@github.com:someone/opencode-rulebook.git",
    "opencode-rulebook-0.1.0.tgz",
    "https://registry.example/opencode-rulebook/-/opencode-rulebook-0.1.0.tgz",
  ])("%s is this package, by the name it gives", (spec) => {
    const read = packages({});
    expect(isRulebookSpec(spec, place, read)).toBe(true);
    expect(read.asked).toEqual([]);
  });

  test.each([
    "opencode-rulebook-extra",
    "@someone/opencode-rulebook",
    "OpenCode-Rulebook",
    "other@npm:other-plugin",
    "github:someone/other-plugin",
    "someone/opencode-rulebook-fork",
    "git+https://github.com/opencode-rulebook/other.git",
    "other-plugin-1.0.0.tgz",
    "opencode-rulebook/dist/index.js",
  ])("%s is not", (spec) => {
    expect(isRulebookSpec(spec, place, packages({}))).toBe(false);
  });

  test("a folder by npm's `~/` or `file:` is known by its package.json: `~` is the home folder, `file:` relative to OpenCode's working folder", () => {
    const read = packages({
      "/home/ada/src/rules": ours,
      "/work/clones/rb": ours,
      "/work/app/vendor/other": { name: "other" },
    });
    expect(isRulebookSpec("~/src/rules", place, read)).toBe(true);
    expect(isRulebookSpec("file:../clones/rb", place, read)).toBe(true);
    expect(isRulebookSpec("file:~/src/rules", place, read)).toBe(true);
    expect(isRulebookSpec("file:vendor/other", place, read)).toBe(false);
  });
});

describe("a path (file:// URL, absolute, or starting with `.`)", () => {
  test("a folder of any name is this package when its package.json says so", () => {
    const read = packages({ "/home/ada/src/rules": ours });
    expect(isRulebookSpec("/home/ada/src/rules", place, read)).toBe(true);
    expect(isRulebookSpec("/home/ada/src/rules/", place, read)).toBe(true);
    expect(isRulebookSpec("file:///home/ada/src/rules", place, read)).toBe(true);
  });

  test("a path starting with `.` is relative to the config file's folder, as `opencode plugin ../folder` leaves it in .opencode/", () => {
    const read = packages({ "/work/app/rules": ours, "/work/rules": { name: "other" } });
    expect(isRulebookSpec("../rules", place, read)).toBe(true);
    expect(read.asked[0]).toBe("/work/app/rules");
    expect(isRulebookSpec("../rules", { ...place, configFile: "/work/app/opencode.json" }, read)).toBe(false);
    expect(isRulebookSpec("./rules", { ...place, configFile: "/work/app/opencode.json" }, read)).toBe(true);
  });

  test("in .opencode/, relative to the project folder too (a later OpenCode resolves it there)", () => {
    const read = packages({ "/work/app/rules": ours });
    expect(isRulebookSpec("./rules", place, read)).toBe(true);
    expect(read.asked).toEqual(["/work/app/.opencode/rules", "/work/app/.opencode", "/work/app/rules"]);
  });

  test("the package's entry files, and its dist folder (OpenCode opens a folder without package.json at its index)", () => {
    const read = packages({ "/home/ada/src/rules": ours });
    for (const spec of [
      "/home/ada/src/rules/dist/index.js",
      "file:///home/ada/src/rules/dist/tui.js",
      "/home/ada/src/rules/dist",
    ]) {
      expect(isRulebookSpec(spec, place, read), spec).toBe(true);
    }
  });

  test("another package's folder or entry file is not, even at dist/index.js; the nearest package.json decides", () => {
    const read = packages({
      "/home/ada/src/other": { name: "other-plugin" },
      "/home/ada/src/rules": ours,
      "/home/ada/src/rules/node_modules/dep": { name: "dep" },
    });
    expect(isRulebookSpec("/home/ada/src/other", place, read)).toBe(false);
    expect(isRulebookSpec("/home/ada/src/other/dist/index.js", place, read)).toBe(false);
    expect(isRulebookSpec("/home/ada/src/rules/node_modules/dep", place, read)).toBe(false);
  });

  test("no package.json, an unreadable one, or one without a name: not this package", () => {
    const read = packages({ "/srv/broken": null, "/srv/nameless": { version: "1.0.0" } });
    expect(isRulebookSpec("/srv/nothing-here", place, read)).toBe(false);
    expect(isRulebookSpec("/srv/broken", place, read)).toBe(false);
    expect(isRulebookSpec("/srv/nameless/dist/index.js", place, read)).toBe(false);
    expect(isRulebookSpec("file://not a url/x", place, read)).toBe(false);
  });

  test("a path named as the package is taken as it without a read (an install OpenCode has not fetched yet)", () => {
    const read = packages({});
    for (const spec of [
      "/opt/opencode-rulebook",
      "./node_modules/opencode-rulebook/dist/index.js",
      "file:///opt/opencode-rulebook/dist/tui.js",
    ]) {
      expect(isRulebookSpec(spec, place, read), spec).toBe(true);
    }
    expect(read.asked).toEqual([]);
  });
});
