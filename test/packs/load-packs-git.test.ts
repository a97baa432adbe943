/**
 * Git packs read at start: from the cache at the commit the lock pins, and
 * refused when tampered with, unpinned or missing; a running session follows
 * a rewritten lock.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { startLiveRules } from "../../src/formats/live-rules.js";
import { createLogger } from "../../src/log.js";
import { gitCheckoutFolder } from "../../src/packs/git-cache.js";
import {
  box,
  context,
  hashOf,
  load,
  makePackBox,
  pack,
  removePackBox,
  texts,
  writeLock,
} from "../support/load-packs.js";
import { writeTree } from "../support/temp-folder.js";

beforeEach(makePackBox);
afterEach(removePackBox);

describe("a Git pack", () => {
  const SPEC = "git+file:///srv/rules.git#v2";
  const URL = "file:///srv/rules.git";
  const COMMIT = "a".repeat(40);
  const checkout = () => gitCheckoutFolder(box.cache, URL, COMMIT);

  test("read from the cache at the commit the lock pins; tampered, it is refused", async () => {
    await writeTree(checkout(), { "rules/always.md": "---\nalwaysApply: true\n---\nAlways from Git." });
    const configured = pack(SPEC);
    const locked = { kind: "git" as const, url: URL, ref: "v2", commit: COMMIT, hash: "sha256-".padEnd(71, "0") };
    await writeLock(configured.place.lockFile, { lockfileVersion: 1, packs: { [SPEC]: locked } });
    const hash = await hashOf(configured, { lockfileVersion: 1, packs: { [SPEC]: locked } });
    await writeLock(configured.place.lockFile, { lockfileVersion: 1, packs: { [SPEC]: { ...locked, hash } } });
    const loaded = await load([configured]);
    expect(loaded.rules.map((rule) => [rule.name, rule.pack?.label, rule.pack?.commit])).toEqual([
      ["always", "git+file:///srv/rules.git@aaaaaaa", COMMIT],
    ]);
    await writeFile(join(checkout(), "rules", "always.md"), "Tampered.");
    const tampered = await load([configured]);
    expect(tampered.rules).toEqual([]);
    expect(texts(tampered)[0]).toContain("changed since it was installed");
  });

  test("without a lock entry, or not in the cache, or locked for another ref: a warning each, nothing delivered", async () => {
    const configured = pack(SPEC);
    expect(texts(await load([configured]))).toEqual([
      expect.stringContaining("is not pinned by rulebook.lock; not delivered: run `opencode-rulebook packs install`"),
    ]);
    await writeLock(configured.place.lockFile, {
      lockfileVersion: 1,
      packs: { [SPEC]: { kind: "git", url: URL, ref: "v2", commit: COMMIT, hash: `sha256-${"0".repeat(64)}` } },
    });
    expect(texts(await load([configured]))).toEqual([expect.stringContaining("is not installed")]);
    await writeLock(configured.place.lockFile, {
      lockfileVersion: 1,
      packs: { [SPEC]: { kind: "git", url: URL, ref: "v1", commit: COMMIT, hash: `sha256-${"0".repeat(64)}` } },
    });
    expect(texts(await load([configured]))).toEqual([expect.stringContaining("differs from what rulebook.lock pins")]);
  });

  test("a running session follows `packs update --global`: the rewritten lock is seen, the new commit's rules delivered", async () => {
    const NEXT = "b".repeat(40);
    // The user's lock sits in OpenCode's config folder, which holds no rules itself.
    const configured = pack(SPEC, "user");
    const lockAt = async (commit: string, text: string) => {
      await writeTree(gitCheckoutFolder(box.cache, URL, commit), { "rules/always.md": text });
      const entry = { kind: "git" as const, url: URL, ref: "v2", commit, hash: `sha256-${"0".repeat(64)}` };
      const hash = await hashOf(configured, { lockfileVersion: 1, packs: { [SPEC]: entry } });
      await writeLock(configured.place.lockFile, { lockfileVersion: 1, packs: { [SPEC]: { ...entry, hash } } });
    };
    await lockAt(COMMIT, "First commit's rule.");
    const live = await startLiveRules(
      context(),
      { packs: [configured] },
      createLogger(async () => undefined, false),
    );
    try {
      expect(live.current().rules.map((rule) => rule.content)).toEqual(["First commit's rule."]);
      await lockAt(NEXT, "Second commit's rule.");
      await vi.waitFor(async () => expect(await live.refresh()).toEqual({ changed: ["always"], removed: [] }), {
        timeout: 3000,
        interval: 100,
      });
      expect(live.current().rules.map((rule) => rule.content)).toEqual(["Second commit's rule."]);
    } finally {
      live.close();
    }
  });

  test("a damaged lock pins nothing: its packs wait, with the file named", async () => {
    const configured = pack(SPEC);
    await writeTree("/", { [configured.place.lockFile]: "{ not json" });
    expect(texts(await load([configured]))[0]).toContain("rulebook.lock");
  });
});
