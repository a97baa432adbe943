/**
 * The README's first command works: the demo (scripts/demo.ts, run as
 * `npm run demo` after the build) starts the real OpenCode, runs its scripted
 * conversation, checks what the model saw, prints the timeline and exits 0.
 * Run here as a child process, exactly as a user would (minus the build,
 * which `npm test` has done).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "./harness/opencode.js";

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs"), path.join(REPO_ROOT, "scripts", "demo.ts")],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGTERM"), 40_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("npm run demo", () => {
  test("runs the scripted conversation in the real OpenCode and exits 0", { timeout: 45_000 }, async () => {
    const { code, stdout, stderr } = await runDemo();
    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    expect(stderr).not.toMatch(/Demo failed/);

    const lines = [
      /OpenCode http:\/\/127\.0\.0\.1:\d+ started/,
      /global rule \(written by the demo/,
      /plugin stored its rules message .*trigger: new-session/,
      /rules in it: demo-global, style-guide/,
      /✔ it caused no model request and no assistant reply/,
      /✔ the rules \(message \d+\) come before the user's text \(message \d+\)/,
      /RULES \[database\/migrations\] \+ "Please add a migration/,
      /✔ keyword rule database\/migrations \("migration"\) went into that user message/,
      /tool {7}result .* \+ RULES appended \[logging, typescript\]/,
      /✔ the write adding console.log\( to src\/greet.ts was refused, naming the rule, the pattern and the line/,
      /✔ the rule tool returned the on-request rule security/,
      /plugin stored a new silent rules message .*trigger: compaction/,
      /✔ every active rule is in that request exactly once/,
      /Demo finished: all \d+ checks passed/,
    ];
    for (const line of lines) expect(stdout).toMatch(line);
    // Timestamps relative to the start, in order of the story.
    expect(stdout).toMatch(/^\[\+ *\d+\.\d\ds\] /m);
  });
});
