/**
 * Issue 6: `opencode-rulebook render` prints, byte for byte, the message the
 * plugin delivers in the real OpenCode for the same rules and options.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { PLUGIN_UNDER_TEST, isRulesPart, waitForRulesStored } from "./harness/rules.js";
import { createSession } from "./harness/wait.js";

const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

describe("render matches the real delivery", { timeout: 60_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    oc = await startOpencode({
      pluginPath: PLUGIN_UNDER_TEST,
      pluginOptions: { maxMessageBytes: 1500 },
      globalRules: { "house.md": "---\npriority: 90\n---\nGlobal house rule." },
      projectRules: {
        "style.md": "# Style\n\nKeep functions small.\n\n```ts\n</rule>\n```",
        "typescript.mdc": "---\nglobs: src/**/*.ts, lib/**/*.ts\n---\nStrict types.",
        "security.md": "---\ndescription: Secrets and credentials\nalwaysApply: false\n---\nNever log secrets.",
        "big.md": `---\npriority: 10\n---\n${"Long rule text. ".repeat(80)}`,
      },
    });
  }, 60_000);

  afterAll(async () => {
    await oc?.stop();
  });

  test("the stored rules message of a new session equals render's stdout (minus its final newline)", async () => {
    const { id } = await createSession(oc.client);
    const messages = await waitForRulesStored(oc.client, id);
    const delivered = messages.flatMap((message) => message.parts).find(isRulesPart) as { text: string } | undefined;
    const rendered = execFileSync(process.execPath, [CLI, "render", "--cwd", oc.projectDir], {
      env: { ...oc.env, NO_COLOR: "1" },
      encoding: "utf8",
    });
    expect(delivered?.text).toBeDefined();
    expect(rendered).toBe(`${delivered!.text}\n`);
    // The budget and the on-request list are part of it: left out, and listed.
    expect(rendered).toContain("left out of this message to keep it short: big");
    expect(rendered).toContain("- security: Secrets and credentials");
  });
});
