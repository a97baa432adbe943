/** What a pack spec names (src/packs/spec.ts), what is refused and why, and how a pinned pack is shown. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { packLabel, parsePackSpec, type PackSpec } from "../../src/packs/spec.js";

const pack = (spec: string): PackSpec => {
  const parsed = parsePackSpec(spec);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed.pack;
};
const refusal = (spec: string): string => {
  const parsed = parsePackSpec(spec);
  if ("pack" in parsed) throw new Error(`${spec} was accepted as ${JSON.stringify(parsed.pack)}`);
  return parsed.error;
};

describe("accepted Git specs", () => {
  test.each([
    ["github:acme/rules", "https://github.com/acme/rules.git", undefined, undefined, "github:acme/rules"],
    ["github:acme/rules#v2", "https://github.com/acme/rules.git", "v2", undefined, "github:acme/rules"],
    ["github:acme/rules#v2:frontend", "https://github.com/acme/rules.git", "v2", "frontend", "github:acme/rules"],
    [
      "github:acme/rules#:packages/rules",
      "https://github.com/acme/rules.git",
      undefined,
      "packages/rules",
      "github:acme/rules",
    ],
    [
      "github:Acme-Co/rules.git#release/2.x",
      "https://github.com/Acme-Co/rules.git",
      "release/2.x",
      undefined,
      "github:Acme-Co/rules.git",
    ],
    [
      "git+https://git.example.com/team/rules.git#main",
      "https://git.example.com/team/rules.git",
      "main",
      undefined,
      "git+https://git.example.com/team/rules.git",
    ],
    [
      "git+ssh://git@github.com/acme/rules.git#v1.2.3",
      "ssh://git@github.com/acme/rules.git",
      "v1.2.3",
      undefined,
      "git+ssh://git@github.com/acme/rules.git",
    ],
    [
      "git+ssh://git@host:2222/rules",
      "ssh://git@host:2222/rules",
      undefined,
      undefined,
      "git+ssh://git@host:2222/rules",
    ],
    ["git+file:///tmp/r", "file:///tmp/r", undefined, undefined, "git+file:///tmp/r"],
    [
      "git+file:///srv/rules.git#3f2c1ab0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6:a/b",
      "file:///srv/rules.git",
      "3f2c1ab0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6",
      "a/b",
      "git+file:///srv/rules.git",
    ],
  ])("%s → url %s, ref %s, subdir %s, repo %s", (spec, url, ref, subdir, repo) => {
    expect(pack(spec)).toEqual({
      kind: "git",
      spec,
      url,
      repo,
      ...(ref ? { ref } : {}),
      ...(subdir ? { subdir } : {}),
    });
  });
});

describe("accepted npm names and folders", () => {
  test.each(["@acme/opencode-rules", "opencode-rules", "rules.team_x-2", "@a/b.c"])("%s is an npm package", (spec) => {
    expect(pack(spec)).toEqual({ kind: "npm", spec, name: spec });
  });

  test.each([
    ".",
    "..",
    "./rules",
    "../platform/rules",
    "/abs/rules",
    "~/team/rules",
    "C:\\rules",
    "d:/rules",
    ".\\rules",
    "~/Team Rules",
  ])("%s is a folder, kept as written", (spec) => {
    expect(pack(spec)).toEqual({ kind: "folder", spec, path: spec });
  });
});

describe("refused specs, each with the spec and why", () => {
  test.each([
    ["", /empty/],
    ["x".repeat(1025), /longer than 1024 characters/],
    ["github:acme/rules\n#v2", /control character or whitespace/],
    ["github:acme/rules\t", /control character or whitespace/],
    ["./rules\u0000", /control character/],
    ["github:acme/rules\u200b", /control character/],
    ["--upload-pack=evil", /starts with "-".*option/],
    ["-rules", /starts with "-"/],
    ["git+https://x/y#--upload-pack=z", /the ref "--upload-pack=z" starts with "-"/],
    ["github:a/b#..", /the ref "\.\." holds "\.\."/],
    ["github:a/b#v1..v2", /holds "\.\."/],
    ["github:a/b#main@{1}", /holds "@\{"/],
    ["github:a/b#a\\b", /holds "\\\\"/],
    ["github:a/b#a~1", /holds "~"/],
    ["github:a/b#a^", /holds "\^"/],
    ["github:a/b#a?", /holds "\?"/],
    ["github:a/b#a*", /holds "\*"/],
    ["github:a/b#a[1]", /holds "\["/],
    ["github:a/b#main.lock", /ending with "\.lock"/],
    ["github:a/b#main/", /ends with "\/"/],
    ["github:a/b#main.", /ends with "\."/],
    ["github:a/b#a//b", /empty part/],
    ["github:a/b#.hidden", /starting with "\."/],
    ["github:a/b#@", /"@"/],
    ["github:a/b#", /nothing follows #/],
    ["github:a/b#v2:", /sub-folder "" is empty/],
    ["github:a/b#v2:/etc", /sub-folder "\/etc" is absolute/],
    ["github:a/b#v2:../up", /"\.\." part/],
    ["github:a/b#v2:a/./b", /"\." or "\.\." part/],
    ["github:a/b#v2:a\\b", /backslash/],
    ["github:a/b#v2:a//b", /empty part/],
    ["github:a/b#v2:-x", /sub-folder "-x" starts with "-"/],
    ["git+ext::sh -c evil", /a Git URL is written git\+https/],
    ["ext::sh -c evil", /"ext:" is not a pack form/],
    ["git://github.com/a/b.git", /not encrypted/],
    ["http://example.com/a.git", /not encrypted/],
    ["git+http://example.com/a.git", /a Git URL is written git\+https/],
    ["https://github.com/a/b.git", /is written git\+https:\/\/github\.com\/a\/b\.git/],
    ["ssh://host/x", /is written git\+ssh:\/\/host\/x/],
    ["file:///tmp/r", /git\+file:\/\/\/tmp\/r/],
    ["git@github.com:a/b.git", /scp-style.*git\+ssh:\/\/git@github\.com\/a\/b\.git/],
    ["github:a", /github:owner\/repo/],
    ["github:a/b/c", /github:owner\/repo/],
    ["github:../b", /github:owner\/repo/],
    ["github:a/..", /github:owner\/repo/],
    ["github:a/b c", /github:owner\/repo/],
    ["git+https:///path", /names no host/],
    ["git+https://host", /names no repository/],
    ["git+ssh://-oProxyCommand=evil/x", /cannot start with "-"/],
    ["git+ssh://-oProxyCommand=x@host/x", /cannot start with "-"/],
    ["git+https://me:secret@host/x.git", /password/],
    ["git+file:relative/x", /absolute path/],
    ["git+file://host/x", /absolute path/],
    ["git+file:///", /absolute path/],
    ["acme/rules", /write github:acme\/rules.*or \.\/acme\/rules/],
    ["@acme/x@1.2", /names no version.*package\.json and lockfile.*"@acme\/x"/],
    ["x@^2", /names no version.*package\.json and lockfile/],
    ["x@npm:y", /names no version/],
    ["npm:x", /npm alias/],
    ["Rules", /lower case/],
    ["_rules", /cannot start with/],
    [".rules", /cannot start with/],
    ["@acme", /@scope\/name/],
    ["rules!", /cannot hold/],
    ["r%20s", /URL-safe/],
    ["a b", /only a folder .* may hold a space/],
    ["node_modules", /npm keeps for itself/],
    ["x".repeat(215), /at most 214/],
    ["./rules ", /ends with a space/],
  ])("%j is refused", (spec, why) => {
    const error = refusal(spec);
    expect(error).toMatch(why);
    if (spec !== "")
      expect(error).toContain(`pack ${JSON.stringify(spec.length > 80 ? `${spec.slice(0, 80)}…` : spec)}`);
  });

  test("a 40-hex commit is a fine ref, an option-looking one is not", () => {
    expect(pack(`github:a/b#${"a".repeat(40)}`)).toMatchObject({ ref: "a".repeat(40) });
    expect(refusal("github:a/b#-c")).toMatch(/option/);
  });
});

describe("no accepted Git spec reaches git as an option or a shell word", () => {
  const piece = fc.string({
    unit: fc.constantFrom("-", "a", "/", ".", ":", "#", "@", " ", "\t", "\n", "\u0000", "~", "^", "=", "0", "\\"),
    maxLength: 12,
  });
  const prefix = fc.constantFrom(
    "github:",
    "git+https://",
    "git+ssh://",
    "git+file:///",
    "git+file://",
    "git+ext::",
    "",
  );

  test("url, ref and subdir never start with - and hold no whitespace or control character", () => {
    fc.assert(
      fc.property(prefix, piece, piece, piece, (start, path, ref, subdir) => {
        for (const spec of [`${start}${path}`, `${start}${path}#${ref}`, `${start}${path}#${ref}:${subdir}`]) {
          const parsed = parsePackSpec(spec);
          if ("error" in parsed || parsed.pack.kind !== "git") continue;
          for (const part of [parsed.pack.url, parsed.pack.ref, parsed.pack.subdir]) {
            if (part === undefined) continue;
            expect(part.startsWith("-")).toBe(false);
            expect(part).not.toMatch(/[\s\p{Cc}]/u);
          }
          expect(parsed.pack.url).toMatch(/^(https|ssh|file):\/\//);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("packLabel", () => {
  const commit = "3f2c1ab0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6";
  test("an npm pack by its version, a Git pack by its short commit, a folder by its spec", () => {
    expect(packLabel(pack("@acme/opencode-rules"), { version: "2.1.0" })).toBe("@acme/opencode-rules@2.1.0");
    expect(packLabel(pack("github:acme/rules#v2"), { commit })).toBe("github:acme/rules@3f2c1ab");
    expect(packLabel(pack("github:acme/rules#v2:frontend"), { commit })).toBe("github:acme/rules@3f2c1ab:frontend");
    expect(packLabel(pack("git+file:///tmp/r#:a/b"), { commit })).toBe("git+file:///tmp/r@3f2c1ab:a/b");
    expect(packLabel(pack("../platform/rules"), { commit })).toBe("../platform/rules");
  });

  test("without a pin, the spec as written", () => {
    expect(packLabel(pack("@acme/opencode-rules"))).toBe("@acme/opencode-rules");
    expect(packLabel(pack("github:acme/rules#v2:frontend"))).toBe("github:acme/rules#v2:frontend");
  });
});
