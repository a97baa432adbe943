/**
 * Issue 7: no exception from the plugin reaches OpenCode. The real plugin is
 * loaded with a client that throws on every use (prompt, messages, log), so
 * every hook meets a throwing dependency; the user's prompts, tool calls and
 * compaction keep working, and the rules still reach the model (inside the
 * first user message, since the silent prompt cannot be sent).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { requestText, toolResults } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { PLUGIN_UNDER_TEST } from "./harness/rules.js";
import { assistantMessages, createSession, getMessages, messageText, prompt, unwrap } from "./harness/wait.js";

const MODEL = { providerID: "fake", modelID: "fake-model" };

describe("a throwing dependency inside every hook (real OpenCode)", { timeout: 90_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    const plugin = PLUGIN_UNDER_TEST.startsWith("file:") ? PLUGIN_UNDER_TEST : pathToFileURL(PLUGIN_UNDER_TEST).href;
    oc = await startOpencode({
      globalRules: { "house.md": "MARK-FAULT-RULE: keep functions small." },
      projectRules: { "ts.md": '---\nglobs: "src/**/*.ts"\n---\nMARK-FAULT-TS: strict types.' },
      // A wrapper plugin: the real one, given a client that throws on every use.
      projectFiles: { "src/app.ts": "export const app = 1;\n", "throwing-client-plugin.mjs": wrapperSource(plugin) },
      config: { plugin: ["./throwing-client-plugin.mjs"] },
    });
  }, 90_000);

  afterAll(async () => {
    await oc?.stop();
  });

  test("prompts, a tool call and a compaction all work; the rules still reach the model", async () => {
    const { id } = await createSession(oc.client);
    oc.fakeModel.enqueue(
      { toolCalls: [{ name: "read", arguments: { filePath: join(oc.projectDir, "src", "app.ts") } }] },
      "read it: ANSWER-ONE",
    );
    await prompt(oc.client, id, "What does the app file hold?");
    const main = oc.fakeModel.mainRequests(id);
    expect(main.length).toBe(2);
    expect(requestText(main[0]!)).toContain("MARK-FAULT-RULE");
    const readResult = toolResults(main[1]!)
      .map((result) => result.text)
      .join("\n");
    expect(readResult).toContain("export const app = 1;");
    // The glob rule still activates on the read, appended to its result.
    expect(readResult).toContain("MARK-FAULT-TS");
    unwrap(await oc.client.session.summarize({ path: { id }, body: MODEL }), "summarize");
    oc.fakeModel.enqueue("ANSWER-TWO");
    await prompt(oc.client, id, "And now?");
    const messages = await getMessages(oc.client, id);
    const answers = assistantMessages(messages).map((message) => messageText(message));
    expect(answers).toContain("read it: ANSWER-ONE");
    expect(answers).toContain("ANSWER-TWO");
  });
});

function wrapperSource(plugin: string): string {
  return `import rulebook from ${JSON.stringify(plugin)};
const exploding = new Proxy({}, { get() { throw new Error("dependency exploded"); } });
export const ThrowingClient = (input, options) => rulebook.server({ ...input, client: exploding }, options);
`;
}
