/**
 * Nothing on stdout (issue 26), in the real OpenCode 1: with debug on, a rule
 * file that gives a warning, a turn that reads a file and one that activates a
 * keyword rule, the server's stdout holds OpenCode's own lines only; the
 * plugin's lines go to OpenCode's log (here printed on stderr).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { PLUGIN_UNDER_TEST } from "./harness/rules.js";
import { createSession, prompt } from "./harness/wait.js";

describe("the plugin never writes to stdout (real OpenCode 1)", { timeout: 90_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    oc = await startOpencode({
      pluginPath: PLUGIN_UNDER_TEST,
      pluginOptions: { debug: true },
      projectRules: {
        "house.md": "MARK-STDOUT-HOUSE: be brief.",
        "ts.md": '---\nglobs: "src/**/*.ts"\n---\nStrict types.',
        "migrations.md": "---\nkeywords: [migration]\n---\nDown steps.",
        "broken.md": "---\nglobs: [unclosed\n---\nBody.",
      },
      projectFiles: { "src/app.ts": "export const app = 1;\n" },
      logLevel: "DEBUG",
    });
  }, 90_000);

  afterAll(async () => {
    await oc?.stop();
  });

  test("stdout holds OpenCode's lines only, while the plugin's debug and warning lines are in OpenCode's log", async () => {
    const { id } = await createSession(oc.client);
    oc.fakeModel.enqueue(
      { toolCalls: [{ name: "read", arguments: { filePath: join(oc.projectDir, "src", "app.ts") } }] },
      "read",
    );
    await prompt(oc.client, id, "What does the app hold?");
    oc.fakeModel.enqueue("ok");
    await prompt(oc.client, id, "Plan a migration.");
    // OpenCode 1.18.33's own two lines, and nothing else.
    expect(oc.stdout().trimEnd().split("\n")).toEqual([
      "Warning: OPENCODE_SERVER_PASSWORD is not set; server is unsecured.",
      `opencode server listening on ${oc.url}`,
    ]);
    // The plugin did log, through OpenCode's log (--print-logs writes it to stderr).
    const log = oc.logs();
    expect(log).toMatch(/level=DEBUG .*message="?Discovered project rule: house\.md/);
    expect(log).toMatch(/level=WARN .*broken\.md:3: front matter is not valid YAML/);
  });
});
