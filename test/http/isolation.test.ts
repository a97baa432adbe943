/**
 * Isolation between rules, hooks and sessions (issue 10): a client that never
 * answers cannot hold a hook OpenCode awaits, a deleted session is never
 * prompted, `dispose` releases everything, an odd message part or tool result
 * affects only itself, and a rule edited while its delivery is on the way
 * reaches the session afterwards, once.
 */
import { createOpencodeClient } from "@opencode-ai/sdk";
import { http } from "msw";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { MARKER_KEY } from "../../src/session/marker.js";
import type { HookLimits } from "../../src/engine/limits.js";
import type { TestEngine as Rulebook } from "../support/opencode-1-engine.js";
import entry from "../../src/index.js";
import { parseRulesMessage } from "../support/rules-message.js";
import {
  BASE_URL,
  fakeServer,
  sessionCompacted,
  sessionCreated,
  startPlugin,
  startTestEngine,
  type FakeOpencode,
  type TempProject,
  useFakeOpencode,
} from "../support/fake-opencode.js";

const fake = useFakeOpencode();
let server: FakeOpencode;
let project: TempProject;
const logged: string[] = [];

beforeEach(async () => {
  ({ server, project } = fake);
  logged.length = 0;
  await project.writeRule("project", "style.md", "Write small functions.\n");
  await project.writeRule(
    "project",
    "migrations.md",
    "---\nkeywords: [migration]\n---\nFollow the migration checklist.\n",
  );
});

const SHORT: HookLimits = {
  reloadWaitMs: 50,
  historyTimeoutMs: 50,
  compactionWaitMs: 150,
  pathCheckMs: 50,
  checkMs: 50,
};

const engine = (
  rawOptions: Record<string, unknown> = {},
  overrides: { creationGraceMs?: number; promptTimeoutMs?: number } = {},
): Promise<Rulebook> =>
  startTestEngine(project, logged, {
    rawOptions,
    retry: { tries: 2, backoffMs: [10] },
    promptTimeoutMs: overrides.promptTimeoutMs ?? 100,
    firstMessageWaitMs: 50,
    creationGraceMs: overrides.creationGraceMs ?? 0,
    limits: SHORT,
  });

/** A server that takes requests and never answers them. */
function neverAnswer() {
  const hang = () => new Promise<never>(() => {});
  fakeServer.use(http.post(`${BASE_URL}/session/:id/message`, hang), http.get(`${BASE_URL}/session/:id/message`, hang));
}

let counter = 0;
function userMessage(sessionID: string, parts: unknown[]) {
  const messageID = `msg_${++counter}`;
  return {
    message: {
      id: messageID,
      sessionID,
      role: "user" as const,
      time: { created: Date.now() },
      agent: "build",
      model: { providerID: "p", modelID: "m" },
    },
    parts: parts.map((part, i) => ({
      id: `prt_0000000000${counter}${i}ABCDEFGHIJKLMN`,
      sessionID,
      messageID,
      ...(part as object),
    })) as never[],
  };
}
const rulesIn = (parts: Array<{ metadata?: Record<string, unknown>; text?: string }>) =>
  parts
    .filter((part) => part.metadata?.[MARKER_KEY])
    .flatMap((part) => parseRulesMessage(part.text ?? "").map((rule) => rule.name));

describe("a client that never answers cannot hold an awaited hook", () => {
  test("chat.message returns, with the rules in the user's message: nothing is lost", async () => {
    neverAnswer();
    const rulebook = await engine();
    // A session from before a restart: the plugin must read its history, which never comes.
    const output = userMessage("ses_hang", [{ type: "text", text: "add a migration" }]);
    await rulebook.onChatMessage({ sessionID: "ses_hang" }, output);
    expect(rulesIn(output.parts)).toEqual(["migrations", "style"]);
    expect(logged.some((line) => line.startsWith("warn: Could not read the history of session ses_hang"))).toBe(true);
  });

  test("the compaction hook returns; the re-delivery that never completes is left for the next message, which carries the rules", async () => {
    const rulebook = await engine();
    await rulebook.onEvent(sessionCreated("ses_c").event as never);
    expect(server.prompts).toHaveLength(1);
    neverAnswer();
    await rulebook.onCompactionAutocontinue({
      sessionID: "ses_c",
      agent: "build",
      model: { id: "m", providerID: "p" },
    });
    // The event for the same compaction joins the delivery under way; it is not awaited by OpenCode.
    await rulebook.onEvent(sessionCompacted("ses_c").event as never);
    expect(logged.some((line) => line.includes("Rules delivery to session ses_c on session.compacted failed"))).toBe(
      true,
    );
    const output = userMessage("ses_c", [{ type: "text", text: "go on" }]);
    await rulebook.onChatMessage({ sessionID: "ses_c" }, output);
    expect(rulesIn(output.parts)).toEqual(["style"]);
  });

  test("a re-delivery still on its way when the compaction hook returns lands after OpenCode's continuation: hidden there, and the next tool result carries the rules", async () => {
    const rulebook = await engine({}, { promptTimeoutMs: 2_000 });
    await rulebook.onEvent(sessionCreated("ses_slow").event as never);
    server.answers.push({ status: 200, delayMs: 600 });
    await rulebook.onCompactionAutocontinue({
      sessionID: "ses_slow",
      agent: "build",
      model: { id: "m", providerID: "p" },
      message: { id: "msg_c" },
    });
    // OpenCode writes its continuation now; the rules prompt is stored after it, and runs the plugin's chat.message as it is.
    const late: Array<{ type: string; ignored?: boolean }> = server.prompts.at(-1)?.body.parts ?? [];
    await rulebook.onChatMessage({ sessionID: "ses_slow" }, { ...userMessage("ses_slow", []), parts: late as never[] });
    expect(late[0]?.ignored).toBe(true);
    const output = { title: "", output: "listing", metadata: {} };
    await rulebook.onToolAfter({ tool: "bash", sessionID: "ses_slow", callID: "c", args: { command: "ls" } }, output);
    expect(
      rulesIn([{ metadata: { [MARKER_KEY]: {} }, text: output.output.slice(output.output.indexOf("<rulebook>")) }]),
    ).toEqual(["style"]);
  });

  test("a rules prompt that never answers: the session.created delivery ends after its tries, and the first message carries the rules", async () => {
    neverAnswer();
    const rulebook = await engine();
    await rulebook.onEvent(sessionCreated("ses_p").event as never);
    expect(
      logged.filter((line) => /Rules delivery to session ses_p on session.created failed \(try \d\)/.test(line)),
    ).toHaveLength(2);
    const output = userMessage("ses_p", [{ type: "text", text: "hello" }]);
    await rulebook.onChatMessage({ sessionID: "ses_p" }, output);
    expect(rulesIn(output.parts)).toEqual(["style"]);
  });
});

describe("sessions that end", () => {
  test("a session deleted during the creation grace period is never prompted, and its state is freed", async () => {
    const rulebook = await engine({}, { creationGraceMs: 100 });
    const created = rulebook.onEvent(sessionCreated("ses_gone").event as never);
    await rulebook.onEvent({ type: "session.deleted", properties: { info: { id: "ses_gone" } } } as never);
    await created;
    expect(server.prompts).toEqual([]);
    expect(rulebook.report("ses_gone")).toBeUndefined();
    // A late hook for it does not bring its state back.
    await rulebook.onToolAfter(
      { tool: "read", sessionID: "ses_gone", callID: "c", args: { filePath: "x.ts" } },
      { title: "", output: "ok", metadata: {} },
    );
    expect(rulebook.report("ses_gone")).toBeUndefined();
  });

  test("a session deleted while its delivery is retrying is not prompted again", async () => {
    server.answers.push({ status: 500 }, { status: 500 });
    const rulebook = await engine();
    const created = rulebook.onEvent(sessionCreated("ses_d").event as never);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await rulebook.onEvent({ type: "session.deleted", properties: { info: { id: "ses_d" } } } as never);
    await created;
    expect(server.prompts).toHaveLength(1);
  });

  test("dispose: a pending delivery is not sent, and the session's state is freed", async () => {
    const rulebook = await engine({}, { creationGraceMs: 100 });
    const created = rulebook.onEvent(sessionCreated("ses_x").event as never);
    rulebook.dispose();
    await created;
    expect(server.prompts).toEqual([]);
    expect(rulebook.report("ses_x")).toBeUndefined();
  });

  test("the entry's hooks do nothing once disposed, after 50 start/dispose cycles", async () => {
    for (let i = 0; i < 50; i++) {
      const cycled = await startPlugin(project);
      await cycled.dispose?.();
    }
    const hooks = await entry.server(
      {
        client: createOpencodeClient({ baseUrl: BASE_URL }),
        directory: project.projectDir,
        worktree: project.projectDir,
      } as never,
      {},
    );
    await hooks.dispose?.();
    await hooks.event?.(sessionCreated("ses_r") as never);
    const output = { title: "read", output: "done", metadata: {} };
    await hooks["tool.execute.after"]?.(
      { tool: "read", sessionID: "ses_r", callID: "c", args: { filePath: join(project.projectDir, "src", "app.ts") } },
      output,
    );
    expect(server.prompts).toEqual([]);
    expect(output.output).toBe("done");
  });
});

describe("one odd item affects only itself", () => {
  test("a file part whose URL is not valid percent-encoding: the message's keyword rule still arrives", async () => {
    const rulebook = await engine();
    await rulebook.onEvent(sessionCreated("ses_u").event as never);
    const output = userMessage("ses_u", [
      { type: "file", mime: "text/plain", filename: "100%.ts", url: "file:///tmp/100%.ts" },
      { type: "text", text: "write a migration for it" },
    ]);
    await rulebook.onChatMessage({ sessionID: "ses_u" }, output);
    expect(rulesIn(output.parts)).toEqual(["migrations"]);
    expect(rulebook.report("ses_u")?.files).toEqual(["/tmp/100%.ts"]);
  });

  test("a tool result whose output is undefined gets the rules alone, never the text `undefined`", async () => {
    await project.writeRule("project", "ts.md", '---\nglobs: "**/*.ts"\n---\nUse strict types.\n');
    const rulebook = await engine();
    await rulebook.onEvent(sessionCreated("ses_t").event as never);
    const output = { title: "", output: undefined as unknown as string, metadata: {} };
    await rulebook.onToolAfter(
      { tool: "mcp_tool", sessionID: "ses_t", callID: "c1", args: { path: "src/a.ts" } },
      output,
    );
    expect(output.output.startsWith("<rulebook>")).toBe(true);
    expect(output.output).not.toContain("undefined");
    expect(parseRulesMessage(output.output).map((rule) => rule.name)).toEqual(["ts"]);
  });
});

describe("hot reload while a delivery is on its way", () => {
  test.each([
    ["the prompt is answered after the edit", 1000],
    ["the prompt times out, and the retry finds it stored", 300],
  ])(
    "a rule edited during the first delivery reaches the session afterwards, once, as a replacement: %s",
    async (_name, promptTimeoutMs) => {
      server.answers.push({ status: 200, delayMs: 400 });
      const rulebook = await engine({}, { promptTimeoutMs });
      const created = rulebook.onEvent(sessionCreated("ses_h").event as never);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await writeFile(join(project.projectRulesDir, "style.md"), "Write tiny functions.\n");
      await new Promise((resolve) => setTimeout(resolve, 150)); // fs.watch reports asynchronously
      // A hook during the delivery picks up the change.
      await rulebook.onToolBefore({ tool: "read", sessionID: "ses_h", callID: "c0" }, { args: {} });
      await rulebook.onToolAfter(
        { tool: "read", sessionID: "ses_h", callID: "c0", args: {} },
        { title: "", output: "x", metadata: {} },
      );
      await created;
      expect(server.prompts[0]?.body.parts[0]?.text).toContain("Write small functions.");
      const first = { title: "", output: "result", metadata: {} };
      await rulebook.onToolAfter({ tool: "read", sessionID: "ses_h", callID: "c1", args: {} }, first);
      expect(first.output).toContain("Write tiny functions.");
      expect(first.output).toContain("The rule file of style changed");
      const second = { title: "", output: "result", metadata: {} };
      await rulebook.onToolAfter({ tool: "read", sessionID: "ses_h", callID: "c2", args: {} }, second);
      expect(second.output).toBe("result");
      rulebook.dispose();
    },
  );
});
