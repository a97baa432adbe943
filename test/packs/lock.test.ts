/** The lock file (src/packs/lock.ts): read strictly, written stably, and compared with the configured packs. */
import { describe, expect, test } from "vitest";
import { differenceText, lockDifferences, lockText, readLock, type PackLock } from "../../src/packs/lock.js";
import { parsePackSpec, type PackSpec } from "../../src/packs/spec.js";

const commit = "3f2c1ab0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6";
const hash = `sha256-${"ab".repeat(32)}`;

const lock: PackLock = {
  lockfileVersion: 1,
  packs: {
    "github:acme/rules#v2:frontend": {
      kind: "git",
      url: "https://github.com/acme/rules.git",
      ref: "v2",
      subdir: "frontend",
      commit,
      hash,
    },
    "@acme/opencode-rules": { kind: "npm", name: "@acme/opencode-rules", version: "2.1.0", hash },
    "git+file:///srv/rules": { kind: "git", url: "file:///srv/rules", commit, hash },
  },
};

const packs = (...specs: string[]): PackSpec[] =>
  specs.map((spec) => {
    const parsed = parsePackSpec(spec);
    if ("error" in parsed) throw new Error(parsed.error);
    return parsed.pack;
  });

describe("lockText and readLock", () => {
  test("a round trip gives the same lock", () => {
    expect(readLock(lockText(lock))).toEqual({ lock });
  });

  test("packs sorted by spec, keys in a fixed order, 2-space JSON, a trailing newline", () => {
    const text = lockText(lock);
    expect(text.endsWith("}\n")).toBe(true);
    expect(Object.keys(JSON.parse(text).packs)).toEqual([
      "@acme/opencode-rules",
      "git+file:///srv/rules",
      "github:acme/rules#v2:frontend",
    ]);
    expect(text).toContain(
      [
        '    "github:acme/rules#v2:frontend": {',
        '      "kind": "git",',
        '      "url": "https://github.com/acme/rules.git",',
        '      "ref": "v2",',
        '      "subdir": "frontend",',
        `      "commit": "${commit}",`,
        `      "hash": "${hash}"`,
        "    }",
      ].join("\n"),
    );
    expect(text.startsWith('{\n  "lockfileVersion": 1,\n  "packs": {\n')).toBe(true);
  });

  test("the order packs and keys were given in does not change the text", () => {
    const reordered: PackLock = {
      packs: Object.fromEntries(
        Object.entries(lock.packs)
          .reverse()
          .map(([spec, entry]) => [spec, Object.fromEntries(Object.entries(entry).reverse()) as typeof entry]),
      ),
      lockfileVersion: 1,
    };
    expect(lockText(reordered)).toBe(lockText(lock));
  });

  test("an empty lock", () => {
    expect(lockText({ lockfileVersion: 1, packs: {} })).toBe('{\n  "lockfileVersion": 1,\n  "packs": {}\n}\n');
    expect(readLock('{"lockfileVersion":1,"packs":{}}')).toEqual({ lock: { lockfileVersion: 1, packs: {} } });
  });
});

describe("a damaged lock is a clear error, never a throw", () => {
  const withEntry = (entry: unknown) => JSON.stringify({ lockfileVersion: 1, packs: { "github:a/b": entry } });
  const git = { kind: "git", url: "https://github.com/a/b.git", commit, hash };

  test.each([
    ["{", /not JSON/],
    ["[]", /does not hold a JSON object/],
    ["null", /does not hold a JSON object/],
    ['{"lockfileVersion":2,"packs":{}}', /lockfileVersion is 2.*reads version 1 only/],
    ['{"packs":{}}', /lockfileVersion is missing/],
    ['{"lockfileVersion":1}', /"packs" is not an object/],
    ['{"lockfileVersion":1,"packs":[]}', /"packs" is not an object/],
    ['{"lockfileVersion":1,"packs":{},"extra":1}', /key "extra"/],
    [withEntry("x"), /entry for "github:a\/b" is not an object/],
    [withEntry({ ...git, kind: "svn" }), /entry for "github:a\/b" has kind "svn"/],
    [withEntry({ ...git, kind: undefined }), /has kind missing/],
    [withEntry({ ...git, url: undefined }), /entry for "github:a\/b" has no url/],
    [withEntry({ ...git, url: "" }), /has url "", not a non-empty string/],
    [withEntry({ ...git, ref: 2 }), /has ref 2, not a non-empty string/],
    [withEntry({ ...git, commit: "abc" }), /has commit "abc", not a 40-hex commit/],
    [withEntry({ ...git, commit: commit.toUpperCase() }), /not a 40-hex commit/],
    [withEntry({ ...git, hash: "md5-00" }), /has hash "md5-00", not sha256- and 64 hex digits/],
    [withEntry({ ...git, hash: undefined }), /has no hash/],
    [withEntry({ ...git, version: "1.0.0" }), /key "version" a Git pack does not have/],
    [withEntry({ kind: "npm", name: "x", hash }), /has no version/],
    [withEntry({ kind: "npm", name: "x", version: "1.0.0", hash, commit }), /key "commit" an npm pack does not have/],
  ])("%s", (text, why) => {
    const read = readLock(text);
    expect(read).toEqual({ error: expect.stringMatching(why) });
  });
});

describe("lockDifferences", () => {
  test("no packs and no lock: nothing to say; folder packs are never locked", () => {
    expect(lockDifferences([], undefined)).toEqual([]);
    expect(lockDifferences(packs("./rules", "~/team"), undefined)).toEqual([]);
    expect(lockDifferences(packs("./rules"), { lockfileVersion: 1, packs: {} })).toEqual([]);
  });

  test("packs but no lock", () => {
    expect(lockDifferences(packs("@acme/opencode-rules"), undefined)).toEqual([{ kind: "no-lock" }]);
  });

  test("a lock that describes every configured pack", () => {
    expect(
      lockDifferences(
        packs("git+file:///srv/rules", "@acme/opencode-rules", "./rules", "github:acme/rules#v2:frontend"),
        lock,
      ),
    ).toEqual([]);
  });

  test("unlocked, stale and changed entries: configured packs in order, then stale ones by spec", () => {
    const edited: PackLock = {
      lockfileVersion: 1,
      packs: {
        ...lock.packs,
        "github:old/rules": { kind: "git", url: "https://github.com/old/rules.git", commit, hash },
        "zz-rules": { kind: "npm", name: "zz-rules", version: "1.0.0", hash },
        "renamed-rules": { kind: "npm", name: "other-rules", version: "1.0.0", hash },
        "github:kind/rules": { kind: "npm", name: "kind-rules", version: "1.0.0", hash },
        "github:acme/rules#v3": { kind: "git", url: "https://github.com/acme/rules.git", ref: "v2", commit, hash },
        "github:acme/rules#v2:backend": {
          kind: "git",
          url: "https://github.com/acme/rules.git",
          ref: "v2",
          subdir: "frontend",
          commit,
          hash,
        },
        "github:moved/rules": { kind: "git", url: "https://github.com/acme/rules.git", commit, hash },
      },
    };
    const configured = packs(
      "new-rules",
      "renamed-rules",
      "github:kind/rules",
      "github:acme/rules#v3",
      "github:acme/rules#v2:backend",
      "github:moved/rules",
      "@acme/opencode-rules",
      "@acme/opencode-rules",
      "git+file:///srv/rules",
      "github:acme/rules#v2:frontend",
    );
    expect(lockDifferences(configured, edited)).toEqual([
      { kind: "unlocked", spec: "new-rules" },
      { kind: "changed", spec: "renamed-rules", what: "name" },
      { kind: "changed", spec: "github:kind/rules", what: "kind" },
      { kind: "changed", spec: "github:acme/rules#v3", what: "ref" },
      { kind: "changed", spec: "github:acme/rules#v2:backend", what: "subdir" },
      { kind: "changed", spec: "github:moved/rules", what: "url" },
      { kind: "stale", spec: "github:old/rules" },
      { kind: "stale", spec: "zz-rules" },
    ]);
  });

  test("a lock entry for a spec that is now a folder is stale", () => {
    expect(
      lockDifferences(packs("./rules"), {
        lockfileVersion: 1,
        packs: { "./rules": { kind: "npm", name: "x", version: "1.0.0", hash } },
      }),
    ).toEqual([{ kind: "stale", spec: "./rules" }]);
  });

  test("a spec that is an Object property name is still looked up as a spec", () => {
    expect(lockDifferences(packs("constructor"), { lockfileVersion: 1, packs: {} })).toEqual([
      { kind: "unlocked", spec: "constructor" },
    ]);
  });
});

describe("differenceText", () => {
  test.each([
    [
      { kind: "no-lock" } as const,
      /^Packs are configured but there is no rulebook\.lock: run opencode-rulebook packs install/,
    ],
    [{ kind: "unlocked", spec: "x" } as const, /^The pack "x" is not in rulebook\.lock: run/],
    [{ kind: "stale", spec: "x" } as const, /^rulebook\.lock pins "x", which is no longer configured: run/],
    [
      { kind: "changed", spec: "x", what: "ref" } as const,
      /^rulebook\.lock's entry for "x" no longer matches it \(its ref differs\): run/,
    ],
  ])("%j", (difference, text) => {
    expect(differenceText(difference)).toMatch(text);
    expect(differenceText(difference)).toMatch(/\.$/);
  });
});
