/**
 * Rules that activate mid-session, through the real plugin entry: they reach
 * the model inside the message that activated them, once per context window.
 */
import type { Hooks } from "@opencode-ai/plugin";
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { MARKER_KEY } from "../../src/session/marker.js";
import { parseRulesMessage } from "../support/rules-message.js";
import {
  sessionCompacted,
  sessionCreated,
  startPlugin,
  startTestEngine,
  type FakeOpencode,
  type TempProject,
  useFakeOpencode,
} from "../support/fake-opencode.js";
import { userMessage } from "../support/opencode-1-messages.js";
import { writeRulesByTrigger } from "../support/trigger-rules.js";

const fake = useFakeOpencode();
let server: FakeOpencode;
let project: TempProject;
let hooks: Hooks;
let clock = 1;

beforeEach(async () => {
  ({ server, project } = fake);
  await project.writeRule("project", "style.md", "Write small functions.\n");
  await writeRulesByTrigger(project);
  await project.writeRule("project", "release.md", "---\nalwaysApply: false\n---\nRelease steps.\n");
  hooks = await startPlugin(project);
  await hooks.event?.(sessionCreated("ses_1") as never);
});

/** The user's prompt in ses_1 as `chat.message` gets it: the message and its text part, then `extraParts`. */
function userPrompt(text: string, extraParts: unknown[] = []) {
  const messageID = `msg_${clock++}`;
  return {
    message: userMessage("ses_1", messageID, { created: Date.now() }),
    parts: [
      {
        id: `prt_0000000000${String(clock).padStart(2, "0")}ABCDEFGHIJKLMN`,
        sessionID: "ses_1",
        messageID,
        type: "text",
        text,
      },
      ...extraParts,
    ] as never[],
  };
}

const rulesIn = (parts: Array<{ metadata?: Record<string, unknown>; text?: string }>) =>
  parts
    .filter((part) => part.metadata?.[MARKER_KEY])
    .flatMap((part) => parseRulesMessage(part.text ?? "").map((rule) => rule.name));

async function toolCall(tool: string, args: Record<string, unknown>, result = "done") {
  const output = { title: tool, output: result, metadata: {} };
  await hooks["tool.execute.before"]?.({ tool, sessionID: "ses_1", callID: `call_${clock++}` }, { args });
  await hooks["tool.execute.after"]?.({ tool, sessionID: "ses_1", callID: `call_${clock}`, args }, output);
  return output.output;
}

describe("rules delivered at session creation", () => {
  test("always-on rules and the on-request list; glob, keyword and manual rules wait", () => {
    const text = server.prompts[0]!.body.parts[0]!.text;
    expect(parseRulesMessage(text).map((rule) => rule.name)).toEqual(["style"]);
    expect(text).toContain("- security: Handling secrets");
    expect(text).not.toContain("Never log secrets.");
  });
});

describe("rules activated by the user's prompt go into that message as a synthetic part, before the user's words", () => {
  test("a keyword", async () => {
    const quiet = userPrompt("hello there");
    await hooks["chat.message"]?.({ sessionID: "ses_1" }, quiet);
    expect(rulesIn(quiet.parts)).toEqual([]);
    const output = userPrompt("write the Migration for users");
    await hooks["chat.message"]?.({ sessionID: "ses_1" }, output);
    expect(rulesIn(output.parts)).toEqual(["migrations"]);
    expect(output.parts[0]).toMatchObject({ synthetic: true, sessionID: "ses_1", messageID: output.message.id });
    expect((output.parts[0] as unknown as { id: string }).id < (output.parts[1] as unknown as { id: string }).id).toBe(
      true,
    );
    // Once per context window.
    const again = userPrompt("another migration");
    await hooks["chat.message"]?.({ sessionID: "ses_1" }, again);
    expect(rulesIn(again.parts)).toEqual([]);
  });

  test("a @mention, even of a manual rule", async () => {
    const output = userPrompt("ship it, follow @release");
    await hooks["chat.message"]?.({ sessionID: "ses_1" }, output);
    expect(rulesIn(output.parts)).toEqual(["release"]);
  });

  test("a path written in the prompt that exists in the project", async () => {
    const missing = userPrompt("look at src/missing.ts");
    await hooks["chat.message"]?.({ sessionID: "ses_1" }, missing);
    expect(rulesIn(missing.parts)).toEqual([]);
    const output = userPrompt("fix the bug in `src/app.ts`");
    await hooks["chat.message"]?.({ sessionID: "ses_1" }, output);
    expect(rulesIn(output.parts)).toEqual(["typescript"]);
  });

  test("an attached file part", async () => {
    const output = userPrompt("what does this do?", [
      {
        id: "prt_z",
        sessionID: "ses_1",
        messageID: "m",
        type: "file",
        mime: "text/plain",
        url: `file://${project.projectDir}/src/app.ts`,
        filename: "app.ts",
      },
    ]);
    await hooks["chat.message"]?.({ sessionID: "ses_1" }, output);
    expect(rulesIn(output.parts)).toEqual(["typescript"]);
  });
});

describe("rules activated by a tool call are appended to that tool's result", () => {
  test("read of a matching file", async () => {
    expect(await toolCall("read", { filePath: join(project.projectDir, "README.md") })).toBe("done");
    const result = await toolCall("read", { filePath: join(project.projectDir, "src", "app.ts") }, "file text");
    expect(result.startsWith("file text\n\n<rulebook>")).toBe(true);
    expect(parseRulesMessage(result).map((rule) => rule.name)).toEqual(["typescript"]);
    expect(await toolCall("edit", { filePath: join(project.projectDir, "src", "app.ts") })).toBe("done");
  });

  test("write of a file that does not exist yet", async () => {
    const result = await toolCall("write", {
      filePath: join(project.projectDir, "src", "new", "file.ts"),
      content: "x",
    });
    expect(parseRulesMessage(result).map((rule) => rule.name)).toEqual(["typescript"]);
  });

  test("apply_patch naming a matching file", async () => {
    const result = await toolCall("apply_patch", {
      patchText: "*** Begin Patch\n*** Add File: src/x.ts\n+export {}\n*** End Patch",
    });
    expect(parseRulesMessage(result).map((rule) => rule.name)).toEqual(["typescript"]);
  });
});

test("the rule tool reads an on-request rule, and unknown names list the known ones", async () => {
  const execute = hooks.tool?.rule?.execute as (
    args: { name: string },
    context: { sessionID: string },
  ) => Promise<string | { output: string; metadata?: Record<string, unknown> }>;
  const read = await execute({ name: "security" }, { sessionID: "ses_1" });
  // The answer is marked as the plugin's: the history (and the Rules panel) shows the rule is in the window.
  expect(read).toMatchObject({
    output: expect.stringContaining("Never log secrets."),
    metadata: { [MARKER_KEY]: { kind: "rules", rules: ["security"], trigger: "rule" } },
  });
  expect(await execute({ name: "nope" }, { sessionID: "ses_1" })).toMatch(
    /There is no rule named "nope". Known rules: .*security/,
  );
});

test("after compaction the re-delivery carries every rule active in the session, once", async () => {
  await toolCall("read", { filePath: join(project.projectDir, "src", "app.ts") });
  await hooks["chat.message"]?.({ sessionID: "ses_1" }, userPrompt("a migration please"));
  await hooks.event?.(sessionCompacted("ses_1") as never);
  const redelivered = server.prompts.at(-1)!.body.parts[0]!.text;
  expect(
    parseRulesMessage(redelivered)
      .map((rule) => rule.name)
      .sort(),
  ).toEqual(["migrations", "style", "typescript"]);
  expect(redelivered).toContain("- security: Handling secrets");
  // The working set survived: nothing is appended again in this window.
  expect(await toolCall("read", { filePath: join(project.projectDir, "src", "app.ts") })).toBe("done");
});

test("the session's state is visible: working set, active rules with reasons, delivered rules", async () => {
  const engine = await startTestEngine(project, []);
  await engine.onEvent(sessionCreated("ses_r").event as never);
  const args = { filePath: join(project.projectDir, "src", "app.ts") };
  await engine.onToolAfter(
    { tool: "read", sessionID: "ses_r", callID: "c", args },
    { title: "read", output: "done", metadata: {} },
  );
  expect(engine.report("ses_r")).toEqual({
    sessionID: "ses_r",
    files: ["src/app.ts"],
    active: [{ name: "typescript", reason: "file src/app.ts matched src/**/*.ts" }],
    delivered: ["style", "typescript"],
  });
  engine.dispose();
});

test("debug log names each activation and its reason", async () => {
  const debugHooks = await startPlugin(project, { debug: true });
  await debugHooks.event?.(sessionCreated("ses_d") as never);
  const args = { filePath: join(project.projectDir, "src", "app.ts") };
  await debugHooks["tool.execute.after"]?.(
    { tool: "read", sessionID: "ses_d", callID: "c", args },
    { title: "", output: "x", metadata: {} },
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(server.logs.map((log) => log.message)).toContain(
    "Activated rule typescript for session ses_d: file src/app.ts matched src/**/*.ts",
  );
});
