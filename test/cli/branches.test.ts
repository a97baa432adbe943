/** `branches:` on the command line: `explain` reads the branch checked out (or `--branch NAME`), and `list` shows it. */
import { beforeEach, describe, expect, test } from "vitest";
import { projectTree } from "../support/cli-fixtures.js";
import { type Sandbox, useSandbox } from "../support/cli.js";

const RULES: Record<string, string> = {
  "release-notes.md": '---\nbranches: ["release/*"]\n---\nOnly fixes on a release branch.\n',
  "testing.md": "Run npm test before saying you are done.\n",
};

const current = useSandbox((box) => box.write({ ...projectTree(RULES), ".git/HEAD": "ref: refs/heads/main\n" }));
let box: Sandbox;
beforeEach(() => {
  box = current();
});

type Entry = { name: string; reason: string; for?: Record<string, string> };
type Explained = { branch: string | null; delivered: Entry[]; notDelivered: Entry[] };

function explainJson(args: string[]): Explained {
  const run = box.run(["explain", "--json", ...args]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Explained;
}

describe("explain and the branch", () => {
  test("without --branch: the branch checked out, read from .git/HEAD; the rule for release branches does not apply on main", () => {
    const { stdout, code } = box.run(["explain"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Branch: main\n");
    expect(stdout).toMatch(/✗ release-notes +for branch release\/\* only; the repository is on branch main\n/);
    expect(explainJson([]).branch).toBe("main");
  });

  test("--branch release/1.2: delivered, for its branch glob", () => {
    const explained = explainJson(["--branch", "release/1.2"]);
    expect(explained.branch).toBe("release/1.2");
    expect(explained.delivered.map(({ name }) => name).sort()).toEqual(["release-notes", "testing"]);
    expect(explained.delivered.find(({ name }) => name === "release-notes")).toMatchObject({
      reason: "always; for branch release/*",
      for: { branch: "release/*" },
    });
  });

  test("after a switch, explain follows HEAD; a detached HEAD is on no release branch", async () => {
    await box.write({ ".git/HEAD": "ref: refs/heads/release/2.0\n" });
    expect(explainJson([]).delivered.map(({ name }) => name)).toContain("release-notes");
    await box.write({ ".git/HEAD": "3f2c1ab9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3\n" });
    expect(explainJson([]).branch).toBe("HEAD");
    expect(explainJson([]).notDelivered.map(({ name }) => name)).toEqual(["release-notes"]);
  });

  test("--branch that git would refuse: a usage error naming the flag", () => {
    const run = box.run(["explain", "--branch", "a b"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--branch "a b": give a branch name');
  });
});

describe("list and the branch", () => {
  test("the rule shows its branches, in text and JSON", () => {
    const text = box.run(["list"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/release-notes +always · for branch release\/\* /);
    const json = JSON.parse(box.run(["list", "--json"]).stdout) as { rules: Array<Record<string, unknown>> };
    expect(json.rules.find((rule) => rule.name === "release-notes")).toMatchObject({ branches: ["release/*"] });
  });
});
