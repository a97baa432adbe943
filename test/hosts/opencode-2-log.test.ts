/**
 * Nothing on stdout, a log a user can find (issue 26): the built plugin in the
 * simulated OpenCode 2 server, run as its own process as the terminal UI runs
 * it. Its stdout must carry the server's ready line and nothing else, at any
 * log level and through failures; every line goes to `opencode-rulebook.log`
 * in OpenCode's log folder, warnings and errors to stderr as well.
 */
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { READY_LINE, runSimulatedServer } from "../support/opencode-2-server.js";
import { writeTree } from "../support/temp-folder.js";
import { tempFolder } from "../support/temp-folder.js";

const PLUGIN = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const MARK = "MARK-STDOUT-ALWAYS-3f";
let root: string;
let env: Record<string, string>;
let project: string;
const logFile = () => join(env.XDG_DATA_HOME as string, "opencode", "log", "opencode-rulebook.log");

beforeEach(async () => {
  root = await tempFolder("rulebook-oc2-stdout-");
  project = join(root, "project");
  env = {
    HOME: join(root, "home"),
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_DATA_HOME: join(root, "data"),
    OPENCODE_CONFIG_DIR: join(root, "opencode-config"),
  };
  for (const folder of Object.values(env)) await mkdir(folder, { recursive: true });
  await writeTree(join(project, ".opencode", "rules"), {
    "house.md": `---\nalwaysApply: true\n---\n- ${MARK}\n`,
    "ts.md": "---\nglobs: src/**/*.ts\n---\n- Strict types.\n",
    // A rule file with bad front matter: a warning, and the other rules still work.
    "broken.md": "---\nglobs: [unclosed\n---\nBody.\n",
  });
  await writeTree(project, { "src/app.ts": "export const answer = 42;\n" });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("OpenCode 2: the plugin never writes to stdout", () => {
  test("with debug on, a bad rule file, a read, a compaction and a deleted session: stdout is the ready line; the log file holds every line; warnings also on stderr", {
    timeout: 60_000,
  }, async () => {
    const run = await runSimulatedServer(
      {
        plugin: PLUGIN,
        directory: project,
        options: { debug: true },
        turns: [{ text: "Hello." }, { text: "Read it.", read: "src/app.ts", compactAfter: true }, { text: "Go on." }],
      },
      env,
    );
    expect(run.problem).toBeUndefined();
    expect(run.stdout).toBe(`${READY_LINE}\n`);
    expect(run.report?.errors).toEqual([]);
    // The rules reached the model: the session worked.
    expect(run.report?.requests[0]).toContain(MARK);
    const log = await readFile(logFile(), "utf8");
    expect(log).toMatch(/^\S+ DEBUG Discovered project rule: house\.md /m);
    expect(log).toMatch(/^\S+ DEBUG Delivered \d+ rules to session ses_\S+ on new-session/m);
    expect(log).toMatch(/^\S+ WARN {2}.*broken\.md/m);
    // Every line is one entry: time, level, message.
    for (const line of log.trimEnd().split("\n"))
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z (DEBUG|INFO |WARN |ERROR) /);
    expect(run.stderr).toMatch(/\[opencode-rulebook\] \S+ WARN {2}.*broken\.md/);
    expect(run.stderr).not.toMatch(/DEBUG/);
  });

  test("with every host call failing: the session still works, stdout is still only the ready line, the errors are in the log", {
    timeout: 60_000,
  }, async () => {
    const run = await runSimulatedServer(
      {
        plugin: PLUGIN,
        directory: project,
        failing: true,
        turns: [{ text: "Hello." }, { text: "Read it.", read: "src/app.ts" }],
      },
      env,
    );
    expect(run.problem).toBeUndefined();
    expect(run.report?.errors).toEqual([]);
    expect(run.report?.requests[0]).toContain(MARK);
    expect(await readFile(logFile(), "utf8")).toMatch(/WARN {2}Could not (save|read) the rules of session/);
  });
});
