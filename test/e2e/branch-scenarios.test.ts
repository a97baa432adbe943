/**
 * Issue 42 — a rule for some branches (`branches:`), on every host of the
 * scenario table: the branch is read from `.git/HEAD` before each turn and
 * tool result, so `git switch` mid-session brings the rules that now apply,
 * and switching back tells the model the rule no longer does, as an agent
 * switch does, in the same session.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { GIT_ENV } from "../support/git-env.js";
import { EVERY_HOST, expectEachExtendsTheLast, hostForTheTable, requestText } from "../support/scenario-checks.js";
import type { SeenRequest } from "../support/scenario-driver.js";

const MARK = { always: "MARK-BRANCH-ALWAYS-1d4", release: "MARK-RELEASE-BRANCH-7c2" } as const;
const RULES: Record<string, string> = {
  "house.md": `---\nalwaysApply: true\n---\n# House\n- ${MARK.always}: be brief.\n`,
  "release-notes.md": `---\nbranches: ["release/*"]\n---\n# Release branches\n- ${MARK.release}: only fixes here.\n`,
};
const PAUSED = "Not in effect while you work as";
const RESUMED = "In effect again now that you work as";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, env: GIT_ENV, stdio: ["ignore", "pipe", "pipe"] })
    .toString()
    .trim();
const count = (request: SeenRequest | undefined, text: string) => requestText(request).split(text).length - 1;
/** What the model read before the user's words in the request. */
const readBefore = (request: SeenRequest | undefined, words: string) =>
  requestText(request).slice(0, requestText(request).lastIndexOf(words));

describe.each(EVERY_HOST)("%s", (_name, driver) => {
  let project = "";
  const host = hostForTheTable(driver, {
    projectRules: RULES,
    projectFiles: { "README.md": "# fixture\n" },
    prepare: (place) => {
      project = place.project;
      // OpenCode 1's harness made a repository already; the simulated OpenCode 2's project has none.
      if (!existsSync(join(project, ".git"))) git(project, "init", "-q", "-b", "main");
      git(project, "add", "-A");
      git(project, "commit", "-qm", "fixture", "--allow-empty");
    },
  });

  test("git switch release/1.2 between turns brings the release rule; switching back says it no longer applies, in the same session", {
    timeout: 60_000,
  }, async () => {
    const home = git(project, "branch", "--show-current");
    expect(home).not.toMatch(/^release\//);
    const session = await host.newSession();
    const first = await host.turn(session, "Start on the main branch.");
    expect(count(first[0], MARK.always)).toBe(1);
    expect(count(first[0], MARK.release)).toBe(0);

    git(project, "switch", "-q", "-c", "release/1.2");
    const onRelease = await host.turn(session, "Now on the release branch.");
    expect(onRelease).toHaveLength(1);
    expect(count(onRelease[0], MARK.release)).toBe(1);
    expect(readBefore(onRelease[0], "Now on the release branch.")).toContain(MARK.release);
    expect(requestText(onRelease[0])).toContain('for="branch release/*"');

    git(project, "switch", "-q", home);
    const back = await host.turn(session, "Back on the main branch.");
    expect(back).toHaveLength(1);
    expect(count(back[0], MARK.release)).toBe(1); // the release turn's copy, kept in the history
    expect(count(back[0], PAUSED)).toBe(1);
    expect(readBefore(back[0], "Back on the main branch.")).toMatch(
      new RegExp(`${PAUSED} [^\\n]*branch ${home}[^\\n]*: release-notes \\(branch release/\\*\\)`),
    );

    git(project, "switch", "-q", "release/1.2");
    const again = await host.turn(session, "On the release branch again.");
    expect(count(again[0], RESUMED)).toBe(1);
    expect(count(again[0], MARK.release)).toBe(1); // said to apply again, never given a second time
    expectEachExtendsTheLast([...first, ...onRelease, ...back, ...again]);
    git(project, "switch", "-q", home);
  });

  test("the model's own git switch: the rule comes with that command's result, before the model's next request", {
    timeout: 60_000,
  }, async () => {
    const home = git(project, "branch", "--show-current");
    git(project, "branch", "-f", "release/1.2");
    const session = await host.newSession();
    const requests = await host.turn(session, "Switch to the release branch.", [
      { bash: "git switch -q release/1.2" },
      { answer: "switched" },
    ]);
    git(project, "switch", "-q", home);
    expect(requests).toHaveLength(2);
    expect(count(requests[0], MARK.release)).toBe(0);
    expect(count(requests[1], MARK.release)).toBe(1);
  });
});
