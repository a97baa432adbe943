/**
 * What a person reads when a pack is not delivered (src/rule/pack-problems.ts
 * through the warning's text): what is wrong, that the pack's rules are not
 * delivered, and the command that fixes it for whoever owns the pack: the
 * user's with `--global`, the administrator's with `--managed`, the
 * project's with neither.
 */
import { describe, expect, test } from "vitest";
import type { PackOwner, PackProblem } from "../../src/rule/pack-problems.js";
import { ruleWarning, warningText } from "../../src/rule/warnings.js";

const CONFIG = "/project/opencode.json";
const SPEC = "@acme/rules";
const HASH_A = `sha256-${"a".repeat(64)}`;
const HASH_B = `sha256-${"b".repeat(64)}`;

const textOf = (problem: PackProblem, owner: PackOwner) =>
  warningText(ruleWarning(CONFIG, { code: "pack-not-delivered", pack: SPEC, problem, owner }));

const FLAG: Record<PackOwner, string> = { repository: "", user: " --global", managed: " --managed" };
const OWNERS: PackOwner[] = ["repository", "user", "managed"];

/** Each kind: the problem, what its text must name, and the `packs` subcommand that fixes it (none when editing the pack or the config is the fix). */
type Case<K extends PackProblem["kind"]> = {
  problem: Extract<PackProblem, { kind: K }>;
  names: string[];
  fix?: "install" | "update";
};

/** Keyed by kind: a kind added to PackProblem and not here fails to type-check. */
const CASES: { [K in PackProblem["kind"]]: Case<K> } = {
  "spec-invalid": {
    problem: { kind: "spec-invalid", reason: 'pack "ssh://host/repo" is not a pack spec' },
    names: ['pack "ssh://host/repo" is not a pack spec'],
  },
  "not-installed": {
    problem: { kind: "not-installed", where: "/home/u/.cache/opencode/rulebook/packs/repo-aaaaaaa" },
    names: ["is not installed", "/home/u/.cache/opencode/rulebook/packs/repo-aaaaaaa"],
    fix: "install",
  },
  "not-locked": { problem: { kind: "not-locked" }, names: ["is not pinned by rulebook.lock"], fix: "install" },
  "lock-differs": {
    problem: { kind: "lock-differs", what: "its URL, ref or sub-folder changed" },
    names: ["differs from what rulebook.lock pins", "its URL, ref or sub-folder changed"],
    fix: "update",
  },
  "hash-differs": {
    problem: { kind: "hash-differs", locked: HASH_A, found: HASH_B, from: "git" },
    names: ["changed since it was installed", HASH_A, HASH_B],
    fix: "install",
  },
  "version-differs": {
    problem: { kind: "version-differs", locked: "2.1.0", found: "2.2.0" },
    names: ["is installed at 2.2.0, but rulebook.lock records 2.1.0"],
    fix: "update",
  },
  "outside-repository": {
    problem: { kind: "outside-repository", realPath: "/home/u/secret" },
    names: ["leads to /home/u/secret, outside the repository"],
  },
  "rules-outside-pack": {
    problem: { kind: "rules-outside-pack", realPath: "/etc" },
    names: ["names a rules folder outside the pack (/etc)"],
  },
  "no-rules-folder": {
    problem: { kind: "no-rules-folder", folder: "/project/node_modules/@acme/rules/rules" },
    names: ["has no rules folder (/project/node_modules/@acme/rules/rules)"],
  },
  unreadable: {
    problem: { kind: "unreadable", reason: "EACCES: permission denied" },
    names: ["cannot be read (EACCES: permission denied)"],
  },
};
const KINDS = Object.values(CASES);

describe("every kind of pack problem, for every owner", () => {
  describe.each(KINDS)("$problem.kind", ({ problem, names, fix }) => {
    test.each(OWNERS)("for the %s's pack: names the pack and what is wrong, and says it is not delivered", (owner) => {
      const text = textOf(problem, owner);
      expect(text.startsWith(`pack ${SPEC} `)).toBe(true);
      for (const name of names) expect(text).toContain(name);
      expect(text).toMatch(/not delivered|was not read/);
    });

    test.each(OWNERS)("for the %s's pack: the command that fixes it, for that owner", (owner) => {
      const text = textOf(problem, owner);
      if (fix === undefined) {
        expect(text).not.toContain("opencode-rulebook packs");
        return;
      }
      // The whole command, quoted: nothing after the flag (a project's command has none).
      expect(text).toContain(`\`opencode-rulebook packs ${fix}${FLAG[owner]}\``);
      for (const other of OWNERS) if (other !== owner && FLAG[other] !== "") expect(text).not.toContain(FLAG[other]);
    });
  });
});

describe("a warning a person acts on", () => {
  test("an npm pack not in node_modules: npm installs it, whoever names it", () => {
    for (const owner of OWNERS) {
      const text = textOf({ kind: "not-installed", where: "node_modules/@acme/rules from /project" }, owner);
      expect(text).toBe(
        "pack @acme/rules is not installed (looked in node_modules/@acme/rules from /project); not delivered: run `npm install`",
      );
    }
  });

  test("an npm pack changed in node_modules: npm restores it, update accepts it; packs install would not", () => {
    expect(textOf({ kind: "hash-differs", locked: HASH_A, found: HASH_B, from: "npm" }, "repository")).toBe(
      `pack @acme/rules holds rules that differ from what rulebook.lock pins (${HASH_B}, locked ${HASH_A}): changed since it was installed; not delivered: reinstall it (\`npm ci\`), or run \`opencode-rulebook packs update\` to accept the change`,
    );
  });

  test("a managed pack changed since install: the administrator's command restores it", () => {
    expect(textOf({ kind: "hash-differs", locked: HASH_A, found: HASH_B, from: "git" }, "managed")).toBe(
      `pack @acme/rules holds rules that differ from what rulebook.lock pins (${HASH_B}, locked ${HASH_A}): changed since it was installed; not delivered: run \`opencode-rulebook packs install --managed\` to restore it`,
    );
  });

  test("a new version of the user's pack: update accepts it", () => {
    expect(textOf({ kind: "version-differs", locked: "2.1.0", found: "2.2.0" }, "user")).toBe(
      "pack @acme/rules is installed at 2.2.0, but rulebook.lock records 2.1.0; not delivered: run `opencode-rulebook packs update --global` to accept the new version, or reinstall the locked one",
    );
  });

  test("every pack problem is an error: something was not loaded", () => {
    for (const { problem } of KINDS)
      expect(
        ruleWarning(CONFIG, { code: "pack-not-delivered", pack: SPEC, problem, owner: "repository" }).severity,
      ).toBe("error");
  });
});
