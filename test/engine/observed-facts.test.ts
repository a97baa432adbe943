/**
 * The facts the project tells (the branch, read from `.git/HEAD`) and the
 * host's calls: reading them never holds a call up in a way that changes what
 * the call decides. A subagent's session the options leave without rules is
 * marked so before its branch is read: its first message, arriving while that
 * read is slow, still gets no rules.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import type { RulesPrompt } from "../../src/engine/contract.js";
import { type RunningRulebook, startRulebook } from "../../src/engine/rulebook.js";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";
import { parseOptions } from "../../src/options.js";
import { engineDepsOver } from "../support/opencode-1-engine.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";

let project: TempProject | undefined;
let rulebook: RunningRulebook | undefined;
afterEach(async () => {
  rulebook?.dispose();
  await project?.cleanup();
});

/** The file system, but the first read of `.git/HEAD` takes `ms`. */
function slowFirstHead(ms: number): RuleFs {
  let first = true;
  return {
    ...nodeRuleFs,
    async stat(path) {
      if (first && path.endsWith(join(".git", "HEAD"))) {
        first = false;
        await new Promise((resolve) => setTimeout(resolve, ms));
      }
      return nodeRuleFs.stat(path);
    },
  };
}

test("a subagent's session without rules stays without them while its branch is still being read", async () => {
  project = await tempProject();
  await project.writeRule("project", "style.md", "Write small functions.\n");
  await project.writeRule("project", "release.md", '---\nbranches: ["release/*"]\n---\nOnly fixes.\n');
  await mkdir(join(project.projectDir, ".git"), { recursive: true });
  await writeFile(join(project.projectDir, ".git", "HEAD"), "ref: refs/heads/release/1.2\n");
  const sent: RulesPrompt[] = [];
  const logged: string[] = [];
  rulebook = await startRulebook({
    ...engineDepsOver(project, logged),
    fs: slowFirstHead(300),
    options: { ...parseOptions({}, {}).options, subagents: false },
    port: {
      async sendRules(prompt) {
        sent.push(prompt);
        return { created: 1_000 };
      },
      async readWindow() {
        return { rules: [], choice: {}, movedOn: false };
      },
    },
  });
  const seen = rulebook.sessionSeen({ id: "child", parentID: "parent", hasHistory: false });
  // The child's first message comes while the session's first read of its branch is under way.
  await new Promise((resolve) => setTimeout(resolve, 30));
  const answer = await rulebook.userTurn({ sessionID: "child", texts: ["Do the subtask."], files: [], created: 5_000 });
  await seen;
  expect(answer.rules).toBeUndefined();
  expect(sent).toEqual([]);

  // A session of its own reads the branch and gets the rule for it with its first message.
  const own = await rulebook.userTurn({ sessionID: "main", texts: ["Hello."], files: [], created: 6_000 });
  expect(own.rules?.marker.rules).toEqual(["release", "style"]);
});

test("a project whose rules name no branch reads no .git/HEAD on its turns and tool results; one that does, reads it", async () => {
  project = await tempProject();
  await project.writeRule("project", "style.md", "Write small functions.\n");
  await mkdir(join(project.projectDir, ".git"), { recursive: true });
  await writeFile(join(project.projectDir, ".git", "HEAD"), "ref: refs/heads/main\n");
  let headReads = 0;
  const counting: RuleFs = {
    ...nodeRuleFs,
    stat(path) {
      if (path.endsWith(join(".git", "HEAD"))) headReads++;
      return nodeRuleFs.stat(path);
    },
  };
  const port = {
    async sendRules() {
      return { created: 1_000 };
    },
    async readWindow() {
      return { rules: [], choice: {}, movedOn: false };
    },
  };
  rulebook = await startRulebook({ ...engineDepsOver(project, []), fs: counting, port });
  await rulebook.sessionSeen({ id: "s", hasHistory: false });
  await rulebook.userTurn({ sessionID: "s", texts: ["Hello."], files: [], created: 5_000 });
  await rulebook.toolResult("s", { tool: "read", readCall: () => ({ files: ["a.ts"], changes: [] }) });
  expect(headReads).toBe(0);

  await project.writeRule("project", "release.md", '---\nbranches: ["release/*"]\n---\nOnly fixes.\n');
  rulebook.dispose();
  rulebook = await startRulebook({ ...engineDepsOver(project, []), fs: counting, port });
  await rulebook.userTurn({ sessionID: "s2", texts: ["Hello."], files: [], created: 6_000 });
  expect(headReads).toBeGreaterThan(0);
});
