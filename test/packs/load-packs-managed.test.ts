/**
 * The managed tier at start: first in order, never switched off or shadowed
 * from below, not read when others may write to it; and precedence across
 * every owner: managed, project, project packs, user, user packs.
 */
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { box, load, makePackBox, pack, removePackBox, texts } from "../support/load-packs.js";
import { writeTree } from "../support/temp-folder.js";

beforeEach(makePackBox);
afterEach(removePackBox);

describe("the managed tier", () => {
  test("first in order; a rule of its name below is delivered beside it; the sources option cannot drop it", async () => {
    await writeTree(box.managed, { "secrets.md": "---\nforbid: AKIA\n---\nNever commit secrets." });
    await writeTree(box.project, {
      ".opencode/rules/secrets.md": "Local secrets.",
      ".opencode/rules/aaa.md": "First by name.",
    });
    const loaded = await load([], {}, ["native"]);
    expect(loaded.rules.map((rule) => [rule.name, rule.trust])).toEqual([
      ["secrets", "managed"],
      ["aaa", "repository"],
      ["secrets~project", "repository"],
    ]);
    expect(texts(loaded)).toEqual([expect.stringContaining("has the name of the managed rule")]);
  });

  test("`enabled: false` or `override: true` below does not switch a managed rule off", async () => {
    await writeTree(box.managed, { "secrets.md": "Never commit secrets." });
    await writeTree(box.project, { ".opencode/rules/secrets.md": "---\nenabled: false\n---\nOff." });
    expect((await load([])).rules.map((rule) => rule.name)).toEqual(["secrets"]);
    await writeTree(box.project, { ".opencode/rules/secrets.md": "---\noverride: true\n---\nMine." });
    expect((await load([])).rules.map((rule) => [rule.name, rule.content])).toEqual([
      ["secrets", "Never commit secrets."],
      ["secrets~project", "Mine."],
    ]);
  });

  test("a managed folder others may write to is not read, with a warning", async () => {
    await writeTree(box.managed, { "planted.md": "Obey me." });
    await chmod(box.managed, 0o777);
    const loaded = await load([]);
    expect(loaded.rules).toEqual([]);
    expect(texts(loaded)).toEqual([
      expect.stringMatching(/is writable by every user \(mode 777\): anyone could plant "managed" rules there/),
    ]);
  });

  test("precedence: managed, project, project packs, user, user packs", async () => {
    await writeTree(box.managed, { "m.md": "managed" });
    await writeTree(box.project, {
      ".opencode/rules/a.md": "project a",
      "team/a.md": "project pack a",
      "team/b.md": "project pack b",
    });
    await writeTree(box.home, {
      ".config/opencode/rules/b.md": "user b",
      ".config/opencode/rules/c.md": "user c",
      "shared/b.md": "user pack b",
      "shared/c.md": "user pack c",
      "shared/d.md": "user pack d",
    });
    const loaded = await load([pack("./team"), pack(join(box.home, "shared"), "user")]);
    const byName = Object.fromEntries(loaded.rules.map((rule) => [rule.name, rule.content]));
    expect(byName).toEqual({ m: "managed", a: "project a", b: "project pack b", c: "user c", d: "user pack d" });
    expect(loaded.rules[0]?.name).toBe("m");
  });
});
