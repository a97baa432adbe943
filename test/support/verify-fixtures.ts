import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { useSandbox } from "./cli.js";
import { GIT_ENV } from "./git-env.js";

/** Rules that forbid, for `verify`'s tests: a literal that blocks, a regular expression that warns, both for TypeScript under src/. */
export const FORBIDDING_RULES: Record<string, string> = {
  ".opencode/rules/no-console.md":
    '---\nglobs: src/**/*.ts\nforbid:\n  - "console.log("\n---\nLog through `src/log.ts`.\n',
  ".opencode/rules/no-any.md":
    "---\nglobs: src/**/*.ts\nforbid:\n  - /:\\s*any\\b/\nenforce: warn\n---\nType it; `unknown` if you must.\n",
};

/** A sandbox per test whose project is a real git repository (the sandbox's `.git` is an empty folder: it is replaced), with git and `verify` run in it. */
export function useGitSandbox() {
  const current = useSandbox(async (box) => {
    await rm(join(box.project, ".git"), { recursive: true });
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: box.project, env: { ...process.env, ...GIT_ENV } });
  });
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: current().project, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" });
  return {
    box: current,
    git,
    verify: (...args: string[]) => current().run(["verify", ...args], { env: GIT_ENV }),
    async committed(files: Record<string, string>): Promise<void> {
      await current().write(files);
      git("add", "-A");
      git("commit", "-q", "-m", "commit");
    },
  };
}
