/**
 * The record never holds the text of a file, a prompt, a command or the line
 * that broke a rule: a user may share it without sharing code. A property
 * test: random marked texts go through every path that reads text (a
 * prompt, a file written, a file read, a command, `verify` over a file), the
 * real writer keeps the record on disk, and no mark is found in its bytes.
 */
import { readdir, readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { runInProcess } from "../support/cli-in-process.js";
import { startRulebook } from "../../src/engine/rulebook.js";
import { readToolCall } from "../../src/hosts/opencode/tool-call.js";
import { recordFolder } from "../../src/record/location.js";
import { recordWriter } from "../../src/record/store.js";
import { tempProject } from "../support/fake-opencode.js";
import { fakePort } from "../support/fake-port.js";
import { engineDepsOver } from "../support/opencode-1-engine.js";

/** A mark no rule, path or name holds: found in the record only if the text it was in got there. */
const mark = fc.stringMatching(/^[0-9a-f]{16}$/).map((hex) => `MARK${hex}`);
/** Text around a mark: anything a file or prompt may hold, quotes, newlines and escapes included. */
const around = fc.string({ maxLength: 20, unit: "grapheme" });
const marked = fc.tuple(around, mark, around);

describe("what the record never holds", () => {
  test("no text of a prompt, a file written or read, a command or an offending line reaches the record", async () => {
    await fc.assert(
      fc.asyncProperty(marked, marked, marked, marked, marked, async (prompt, written, read, command, checked) => {
        const project = await tempProject();
        const state = join(project.home, "state");
        const env = { ...process.env, XDG_STATE_HOME: state };
        try {
          await project.writeRule(
            "project",
            "logging.md",
            '---\nglobs: src/**/*.ts\nforbid:\n  - "console.log("\nforbidCommands:\n  - "git push --force"\n---\nLog.\n',
          );
          await project.writeRule("project", "todo.md", "---\nfileContains: TODO\n---\nFinish TODOs.\n");
          await project.writeRule("project", "deploy.md", "---\nkeywords: [deploy]\n---\nDeploy with care.\n");
          const record = recordWriter({
            folder: recordFolder(env, project.home),
            projectRoot: project.projectDir,
            log: silent,
          });
          const rulebook = await startRulebook({ ...engineDepsOver(project, []), port: fakePort(), record });
          const model = { providerID: "p", modelID: "m" };
          await rulebook.sessionSeen({ id: "s1", agent: "build", model, hasHistory: false });
          await rulebook.userTurn({ sessionID: "s1", texts: [`deploy ${prompt.join("")}`], files: [], created: 1 });
          const file = `${project.projectDir}/src/a.ts`;
          const content = `const a = 1; // ${written.join("")}\nconsole.log("${written.join("")}");\n`;
          await rulebook.toolAboutToRun("s1", readToolCall("write", "c1", { filePath: file, content }));
          await rulebook.toolAboutToRun(
            "s1",
            readToolCall("bash", "c2", { command: `git push --force ${command.join("")}` }),
          );
          await rulebook.toolAboutToRun("s1", readToolCall("read", "c3", { filePath: file }));
          await rulebook.toolResult("s1", {
            tool: "read",
            callID: "c3",
            readCall: () => ({ files: [file], changes: [] }),
            fileText: () => `TODO ${read.join("")}`,
          });
          await rulebook.dispose();
          await mkdir(join(project.projectDir, "src"), { recursive: true });
          await writeFile(join(project.projectDir, "src", "b.ts"), `console.log("${checked.join("")}");\n`);
          await verify(project.projectDir, project.home, env);

          const folder = recordFolder(env, project.home);
          const files = await readdir(folder);
          const text = (await Promise.all(files.map((name) => readFile(join(folder, name), "utf8")))).join("");
          // The record is there and says what happened, without the text.
          expect(text).toContain('"kind":"refused"');
          expect(text).toContain('"kind":"verify"');
          expect(text).toContain('"trigger":"content"');
          for (const [, one] of [prompt, written, read, command, checked]) expect(text).not.toContain(one);
        } finally {
          await project.cleanup();
        }
      }),
      { numRuns: 12 },
    );
  }, 60_000);
});

const silent = { debugEnabled: false, debug() {}, info() {}, warn() {}, error() {}, flush: async () => {} };

const verify = (cwd: string, home: string, env: Record<string, string | undefined>) =>
  runInProcess(["verify"], { env, home, cwd });
